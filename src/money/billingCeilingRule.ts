import type { UnbilledReason } from '../tracking/unbilledReasons.js';

/**
 * A line item's billed spend of a UTC day may reach this many daily budgets, and no more (Google Ads'
 * rule for daily budgets). Pacing stops serving at one budget; the rest is room for the events of
 * ads served before it ran out.
 */
const DAILY_CEILING_BUDGETS = 2;

/** What the rule reads of a line item: its budgets and its billed spend so far (today's and lifetime), in nano-USD. */
interface CeilingFigures {
  budgetNanos: number;
  /** Infinity when there is none. */
  lifetimeBudgetNanos: number;
  spend: { nanos: number; lifetimeNanos: number };
}

/**
 * The billing ceilings' rule, which serving and billing both ask: which ceiling an event costing
 * `costNanos` would take the line item's billed spend past, or undefined when it can be billed.
 * `heldNanos` is spend accepted but not in the counter yet (billing's current event-loop turn).
 *
 * - Lifetime: spend + cost past the lifetime budget. A lifetime budget is spent up to the last
 *   whole event that fits.
 * - Daily, only when `today` (the event is of the UTC day the counter's `nanos` is of: a conversion
 *   reported for an earlier day meets the lifetime ceiling only): today's spend + cost past
 *   DAILY_CEILING_BUDGETS x the daily budget, or past the cost itself when that is more, so that
 *   the day's first event is billable even at a price above the ceiling (else such a line item
 *   could never deliver).
 *
 * Billing (src/tracking/billingCeiling.ts) asks it of every valid event as it arrives and stores an
 * event it names unbilled, at cost 0. Serving (selectAd.ts) asks it of the line item's price before
 * a serve: when not even one more event could be billed, the line item is not served.
 */
export function billingCeilingPassed(
  lineItem: CeilingFigures,
  costNanos: number,
  heldNanos: number,
  today: boolean,
): Extract<UnbilledReason, 'over_lifetime_budget' | 'over_daily_budget'> | undefined {
  const spent = costNanos + heldNanos;
  if (lineItem.spend.lifetimeNanos + spent > lineItem.lifetimeBudgetNanos) return 'over_lifetime_budget';
  if (today && lineItem.spend.nanos + spent > Math.max(DAILY_CEILING_BUDGETS * lineItem.budgetNanos, costNanos)) return 'over_daily_budget';
  return undefined;
}
