import { isbot } from 'isbot';
import type { IvtReason } from './ivtReasons.js';

export type UserAgentInvalidReason = Extract<IvtReason, 'bot' | 'no_user_agent'>;

/** Distinct user agents remembered; browsers send a few thousand distinct strings, bots many more. */
const MEMO_LIMIT = 10_000;

/**
 * Known bots and crawlers (the `isbot` list, which also covers HTTP libraries such as curl and
 * python-requests) are `bot`. A request with no user agent at all is `no_user_agent`: every
 * browser sends one. isbot costs a few microseconds a call, so verdicts are memoized.
 */
export function createUserAgentClassifier(): (userAgent: string | undefined) => UserAgentInvalidReason | '' {
  const memo = new Map<string, UserAgentInvalidReason | ''>();
  return (userAgent) => {
    if (userAgent === undefined || userAgent.trim() === '') return 'no_user_agent';
    let verdict = memo.get(userAgent);
    if (verdict === undefined) {
      verdict = isbot(userAgent) ? 'bot' : '';
      // Clearing beats LRU bookkeeping here: refilling costs one isbot call per distinct agent.
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(userAgent, verdict);
    }
    return verdict;
  };
}
