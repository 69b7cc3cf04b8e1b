/**
 * How long a serve counts as outstanding while the event it waits for has not come: against its
 * user's frequency cap until its impression (frequencyCounts.ts), and at its expected cost against
 * its line item's daily budget until its billing event (spendPacing.ts). A pixel fires when the ad is
 * rendered, seconds after its serve, and a click follows within minutes when it follows at all; one
 * that has not come after ten minutes most likely never will (the reader left), and holding the
 * serve longer would keep the line item from users and budget nobody used. An event that does come
 * later is still judged at billing time (src/tracking/billingCeiling.ts).
 */
export const OUTSTANDING_SERVE_MS = 10 * 60_000;

/**
 * Outstanding serves held at most, by each of the two (frequency caps' about 150 MB, like the
 * tracking ledger's million serves; pacing's about 41 MB): past it the oldest stop counting early,
 * which errs on serving more, and the billing ceilings still hold.
 */
export const MAX_OUTSTANDING_SERVES = 1_000_000;
