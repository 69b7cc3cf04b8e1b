import type { CampaignStatus, LineItemStatus } from './valueNormalization.js';

/**
 * The PATCH state machines. completed is final for both; staying in the same state is always
 * allowed (a no-op). Becoming active has preconditions checked elsewhere (activation rules).
 */
const campaignMoves: Record<CampaignStatus, readonly CampaignStatus[]> = {
  paused: ['active', 'completed'],
  active: ['paused', 'completed'],
  completed: [],
};

const lineItemMoves: Record<LineItemStatus, readonly LineItemStatus[]> = {
  draft: ['active', 'paused', 'completed'],
  active: ['paused', 'completed'],
  paused: ['active', 'completed'],
  completed: [],
};

/** Why a campaign cannot go from `from` to `to`, or undefined when it can. */
export function campaignTransitionError(from: CampaignStatus, to: CampaignStatus): string | undefined {
  if (from === to || campaignMoves[from].includes(to)) return undefined;
  return from === 'completed' ? 'a completed campaign is final' : `a campaign cannot go from ${from} to ${to}`;
}

/** Why a line item cannot go from `from` to `to`, or undefined when it can. */
export function lineItemTransitionError(from: LineItemStatus, to: LineItemStatus): string | undefined {
  if (from === to || lineItemMoves[from].includes(to)) return undefined;
  return from === 'completed' ? 'a completed line item is final' : `a line item cannot go from ${from} to ${to}`;
}

/** What a line item lacks to become active: serving can price it only with a budget and bids. */
export function activationGaps(lineItem: { budget: unknown; bids: unknown }): string[] {
  const gaps: string[] = [];
  if (lineItem.budget === null) gaps.push('budget');
  if (lineItem.bids === null) gaps.push('bids');
  return gaps;
}
