import { requestJson } from './httpJson.js';
import { BENCH_TRACKING_SECRET } from './serviceProcess.js';
import { verifyTrackingToken } from '../src/tracking/trackingToken.js';

/** Changes timed, one after another: each pauses the line item the body is served. */
const CHANGES = 5;
/** A change not visible after this long is reported as a failure, not waited for. */
const GIVE_UP_MS = 30_000;

export interface ChangeVisibility {
  /** From sending each pause to the first serve without that line item, in ms. */
  millis: number[];
  problem?: string;
}

/**
 * How long a management change takes to reach serving: pauses the line item a request body is
 * served (PATCH status=paused through the Management API), then serves that body back to back
 * until another line item (or no ad) answers. Repeated CHANGES times, each on the next winner.
 */
export async function timeChangeVisibility(baseUrl: string, apiKey: string, publisherToken: string, body: unknown): Promise<ChangeVisibility> {
  const servedLineItem = async (): Promise<string | null> => {
    const answer = await requestJson<{ ad: { tracking: { impression_url: string } } | null }>('POST', `${baseUrl}/v1/serve`, {
      headers: { authorization: `Bearer ${publisherToken}` },
      body,
    });
    if (answer.status !== 200) throw new Error(`serve answered ${answer.status}`);
    if (answer.body.ad === null) return null;
    const verdict = verifyTrackingToken(answer.body.ad.tracking.impression_url.split('/').pop()!, BENCH_TRACKING_SECRET);
    if (!verdict.valid) throw new Error(`the served ad's token does not verify: ${verdict.reason}`);
    return verdict.claims.l;
  };
  const millis: number[] = [];
  for (let change = 0; change < CHANGES; change++) {
    const lineItemId = await servedLineItem();
    if (lineItemId === null) return { millis, problem: 'the change-visibility body is not served an ad' };
    const sent = performance.now();
    const paused = await requestJson('PATCH', `${baseUrl}/v1/advertiser/line-items/${lineItemId}`, {
      headers: { 'x-api-key': apiKey },
      body: { status: 'paused' },
    });
    if (paused.status !== 200) return { millis, problem: `pausing a line item answered ${paused.status}` };
    while ((await servedLineItem()) === lineItemId) {
      if (performance.now() - sent > GIVE_UP_MS) return { millis, problem: `a paused line item was still served after ${GIVE_UP_MS} ms` };
    }
    millis.push(performance.now() - sent);
  }
  return { millis };
}
