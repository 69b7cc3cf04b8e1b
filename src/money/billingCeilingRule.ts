/**
 * A line item's billed spend of a UTC day may reach this many daily budgets, and no more (Google Ads'
 * rule for daily budgets). Pacing stops serving at one budget; the rest is room for the events of
 * ads served before it ran out.
 */
const DAILY_CEILING_BUDGETS = 2;

/**
 * ... and its billed spend of a UTC calendar month this many (the other half of the same rule:
 * Google's monthly charging limit, the average days in a month), so that the days billed up to 2x
 * are paid for by days below one budget and a month never costs more than its days' budgets. Taken
 * of the current daily budget: a budget changed mid-month moves the month's limit with it (Google
 * averages the month's daily budgets; adsvc keeps no history of them). Serving stops a line item
 * whose month is spent (selectAd.ts asks this rule), until the next month.
 */
const MONTHLY_CEILING_BUDGETS = 30.4;

/** What the rule reads of a line item: its budgets and its billed spend so far (today's, this month's and lifetime), in nano-USD. */
interface CeilingFigures {
  budgetNanos: number;
  /** Infinity when there is none. */
  lifetimeBudgetNanos: number;
  spend: { nanos: number; monthNanos: number; lifetimeNanos: number };
}

/** Spend accepted but not in the counters yet, in nano-USD: in all, of the judged event's UTC month, and of its UTC day. */
export interface HeldSpend {
  nanos: number;
  monthNanos: number;
  dayNanos: number;
}

export const NOTHING_HELD: HeldSpend = { nanos: 0, monthNanos: 0, dayNanos: 0 };

/**
 * When the event happened, against the counters' current UTC day: `today`, earlier in the same UTC
 * month (`this_month`: a conversion reported late), or before this month (`earlier`).
 */
export type EventPeriod = 'today' | 'this_month' | 'earlier';

/** Which ceiling an event would pass, named as the event stored unbilled says it (src/tracking/unbilledReasons.ts). */
export type PassedCeiling = 'over_lifetime_budget' | 'over_monthly_budget' | 'over_daily_budget';

/**
 * The billing ceilings' rule, which serving and billing both ask: which ceiling an event costing
 * `costNanos` would take the line item's billed spend past, or undefined when it can be billed.
 * `held` is spend accepted but not in the counters yet (billing's current event-loop turn, a
 * conversion being written): in all, of the event's UTC month, and of its UTC day, each added to the
 * spend its ceiling reads (a late conversion being written is not today's: rev42 R5).
 *
 * - Lifetime: spend + cost past the lifetime budget. A lifetime budget is spent up to the last
 *   whole event that fits.
 * - Monthly, for an event of this UTC month (`today` or `this_month`): the month's spend + cost past
 *   MONTHLY_CEILING_BUDGETS x the daily budget, or past the cost itself when that is more.
 * - Daily, only for an event of `today`: today's spend + cost past DAILY_CEILING_BUDGETS x the daily
 *   budget, or past the cost itself when that is more, so that the day's first event is billable
 *   even at a price above the ceiling (else such a line item could never deliver). A conversion
 *   reported for an earlier day is asked again as `today` with that day's and month's spend
 *   (BillingCeiling.judgeAndStore), as an import's line is (importCeilings.ts).
 *
 * Billing (src/tracking/billingCeiling.ts) asks it of every valid event as it arrives and stores an
 * event it names unbilled, at cost 0. Serving (selectAd.ts) asks it of the line item's price before
 * a serve: when not even one more event could be billed, the line item is not served.
 */
export function billingCeilingPassed(
  lineItem: CeilingFigures,
  costNanos: number,
  held: HeldSpend,
  period: EventPeriod,
): PassedCeiling | undefined {
  if (lineItem.spend.lifetimeNanos + costNanos + held.nanos > lineItem.lifetimeBudgetNanos) return 'over_lifetime_budget';
  if (period === 'earlier') return undefined;
  if (lineItem.spend.monthNanos + costNanos + held.monthNanos > Math.max(MONTHLY_CEILING_BUDGETS * lineItem.budgetNanos, costNanos)) return 'over_monthly_budget';
  if (period === 'today' && lineItem.spend.nanos + costNanos + held.dayNanos > Math.max(DAILY_CEILING_BUDGETS * lineItem.budgetNanos, costNanos)) return 'over_daily_budget';
  return undefined;
}

/**
 * What the line item may still spend before its lifetime budget or MONTHLY_CEILING_BUDGETS x its
 * daily budget this month, whichever comes first. Serving holds its outstanding serves' expected
 * cost against it, as pacing does against today's released budget (selectAd.ts `outOfBudget`), so
 * that a burst of concurrent serves cannot all pass the same remaining lifetime budget and be shown
 * unpaid (try36 L1: 20 serves against 0.50 USD left, 15 shown free). Billing never asks it: an
 * event is billed against spend alone (`billingCeilingPassed`), so a lifetime budget is still spent
 * to the last whole event.
 */
export function ceilingRoomNanos(lineItem: CeilingFigures): number {
  return Math.min(lineItem.lifetimeBudgetNanos - lineItem.spend.lifetimeNanos, MONTHLY_CEILING_BUDGETS * lineItem.budgetNanos - lineItem.spend.monthNanos);
}

/**
 * Why a line item's delivery stopped until an advertiser acts or a new month starts, as its
 * responses say (`delivery_stopped_by`): not one more event at its price fits under its lifetime
 * budget (`lifetime_budget`: until the lifetime budget is raised) or this month's ceiling
 * (`monthly_budget`: until the next UTC month, or a higher daily budget); null otherwise. The daily
 * budget and its ceiling stop it only until tomorrow, and pacing through the day: not named here.
 */
export function deliveryStoppedBy(lineItem: CeilingFigures & { priceNanos: number }): 'lifetime_budget' | 'monthly_budget' | null {
  const passed = billingCeilingPassed(lineItem, lineItem.priceNanos, NOTHING_HELD, 'this_month');
  return passed === 'over_lifetime_budget' ? 'lifetime_budget' : passed === 'over_monthly_budget' ? 'monthly_budget' : null;
}
