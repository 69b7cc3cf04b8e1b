import type { BilledLineItem } from '../serving/adIndex.js';
import { spendOfDay, type BilledSpend } from '../serving/spendPacing.js';
import type { UserCounts } from '../serving/frequencyCounts.js';
import { billingCeilingPassed, NOTHING_HELD, type EventPeriod, type HeldSpend } from '../money/billingCeilingRule.js';
import { firstDayOfMonth, utcDay, utcMonthOfDay } from '../utcDays.js';
import type { ServeHistory } from './serveHistory.js';
import type { TrackedEvent } from './trackedEvent.js';
import type { UnbilledReason } from './unbilledReasons.js';
import { ApiError } from '../http/errors.js';

/** Checks a line item's unwritten spend for repeats of serves ClickHouse counted, and tells the counters' day (IndexedDestinations, from SpendPacing). */
export interface RepeatSettling {
  hasUnsettledSpend(lineItemId: string): boolean;
  /** `serveIds` is read when the check's read begins (between writes): serves added to it until then are asked about too. */
  settleRepeats(lineItemId: string, campaignId: string, serveIds: Iterable<string>): Promise<Map<string, ServeHistory>> | undefined;
  /**
   * The UTC day the spend counters are of (SpendPacing.countersDay), -Infinity when unknown: a
   * judgement after an await (a repeats check, a conversion's lookups) may find them past its
   * event's day, moved on by a serve or a judgement at midnight.
   */
  countersDay(): number;
  /** How long a judgement waits for the check, in all, before it stands as it is (SERVE_LOOKUP_TIMEOUT_MS); as long, no new check after one failed. */
  timeoutMs: number;
}

const NO_REPEAT_SETTLING: RepeatSettling = { hasUnsettledSpend: () => false, settleRepeats: () => undefined, countersDay: () => Number.NEGATIVE_INFINITY, timeoutMs: 0 };

/** A line item's last check of its unwritten spend for repeats (BillingCeiling.settleRepeats). */
interface RepeatCheck {
  /** What ClickHouse counted of the serves asked about; undefined when the check failed or did not answer by `untilMs`. */
  answer: Promise<Map<string, ServeHistory> | undefined>;
  untilMs: number;
  /** Until its answer: judgements over a ceiling wait for it. */
  pending: boolean;
  /**
   * The serves of the judgements waiting for it, asked about with the unwritten spend's: each adds
   * its own, and those added before its read begins (after the turn: a burst's, at least) are asked
   * (rev44 R7: only the first one's was, so the burst's other repeats, unknown after the answer,
   * took the room it freed as first pixels and pushed real ones into more rounds, past the last).
   */
  serveIds: Set<string>;
  /** After an answer of undefined, no new check before this: Infinity while its query still runs (queued behind a write), then timeoutMs after it failed. */
  retryAtMs: number;
}

/** The ceilings of spend, which repeats counted in the unwritten spend can wrongly pass (settleRepeats). */
const SPEND_CEILINGS: ReadonlySet<string> = new Set<UnbilledReason>(['over_daily_budget', 'over_monthly_budget', 'over_lifetime_budget']);

/** What hold() held, for release(). */
const HELD_SPEND = 1;
const HELD_IMPRESSION = 2;

/**
 * A line item's late conversions that may wait for their turn or run at once (lateTurn): a spend read
 * and a store each, some 0.1 s on a loaded 2-core machine (bench/README.md), so the last of them
 * waits seconds, not a postback client's timeout; one more is answered 503 with Retry-After.
 */
export const LATE_TURNS_WAITING = 50;
const LATE_TURNS_FULL = `too many conversions of this line item dated to an earlier day are waiting to be judged (at most ${LATE_TURNS_WAITING}); retry later`;

/** judgeAndStore's 503s for a conversion that became late (readsSpend) after its step began, outside its line item's late turn: its retry takes the turn. */
const DAY_ENDED_MEANWHILE = 'the conversion\'s UTC day ended while it was judged; retry: it is then judged against that day\'s spend';
const LINE_ITEM_LEFT_MEANWHILE = 'the conversion\'s line item changed while it was judged; retry';

/** The line item whose late turn a step runs in (BillingCeiling.lateTurn), or none. */
export type LateTurn = { readonly lineItemId: string } | undefined;
const NO_TURN: LateTurn = undefined;

/** A line item's late turns (BillingCeiling.lateTurn, inLateTurns): the last of them, how many wait or run, who held the last one, and the imports that keep this record. */
interface LateTurns {
  last: Promise<void>;
  waiting: number;
  /** The import (inLateTurns' holder) whose turn ran last; undefined after a late event's. */
  holder: object | undefined;
  /** The imports that judged the line item's lines (inLateTurns): the record stays until they end (endLateTurns), so that they can tell whether anyone took the turn since. */
  keptBy: Set<object> | undefined;
}

/**
 * Billing-time ceilings. Serving checks a line item's spend and its users' frequency counts before it
 * serves, but those only grow when pixels and clicks arrive: a caller who requests many serves while
 * budget and cap remain, then fires their links later, would have all of them billed. So each valid
 * event is judged again when it arrives: one whose cost would take its line item's billed spend past
 * its lifetime budget, 30.4 times its daily budget in the UTC month or twice in the UTC day (the rule, which serving applies too:
 * src/money/billingCeilingRule.ts), and an impression of a keyed user who already reached the cap,
 * is stored with the reason in `unbilled` and cost 0 (unbilledReasons.ts): never lost, never billed.
 * So is an event from outside the countries its line item targets (outsideTargetCountry), checked
 * first: it is not the advertiser's to pay for, whatever its budgets say.
 *
 * The figures are the serving index's, kept by SpendPacing and FrequencyCounts: ClickHouse's (every
 * instance's, re-read every PACING_SYNC_MS, so a restart keeps them) plus what this instance
 * accepted. Across instances the ceiling holds within what the others accepted in one flush and one
 * sync, the bound of pacing. Between a pixel's verdict and the group write of its event-loop turn
 * (EventPipeline.acceptInTurn), when the counters record it, its cost and impression are held here,
 * so that the turn's other pixels see them. A line item that left the index (paused, ended,
 * deleted) is judged by the figures kept for it while its links live (indexedDestinations.ts), one
 * that left before this process started by those read at start (retiredLineItems.ts).
 */
export class BillingCeiling {
  /** Held cost of each line item by the UTC day of its events: a late conversion being written is its own day's, not today's (rev42 R5). */
  private readonly heldSpend = new Map<string, Map<number, number>>();
  private readonly heldImpressions = new Map<string, UserCounts>();

  /** Of each line item, the last of its late turns (lateTurn, inLateTurns) and how many are waiting or running. */
  private readonly lateTurns = new Map<string, LateTurns>();

  /**
   * Each line item's check of its unwritten spend for repeats under way (settleRepeats), whose answer
   * the judgements over a ceiling meanwhile wait for, or its last one that failed or timed out, while
   * no new one is started: a line item with a check answered is not kept.
   */
  private readonly checks = new Map<string, RepeatCheck>();

  /**
   * `lineItemOf` given a judgement's `nowMs` moves the counters to its UTC day, month and cap windows
   * first (IndexedDestinations.billedLineItem); `billedSpend` reads line items' billed spend by UTC
   * day from `fromDay` on and in all (IndexedDestinations.billedSpend, the reader imports judge by
   * too), undefined when it cannot: the event is then not stored (503), never billed unjudged.
   */
  constructor(
    private readonly lineItemOf: (lineItemId: string, nowMs?: number) => BilledLineItem | undefined,
    private readonly billedSpend: (lineItems: ReadonlyMap<string, string>, fromDay: number) => Promise<Map<string, BilledSpend>> | undefined,
    private readonly repeats: RepeatSettling = NO_REPEAT_SETTLING,
  ) {}

  /**
   * Runs `step` (which looks the event up and calls judgeAndStore with the turn it is given) in the
   * event's line item's late turn when judgeAndStore will read the line item's spend for it
   * (readsSpend), else at once. A line item's late turns run one after the other, so that each
   * spend read sees the events stored before it, and are taken before anything the step holds (a
   * conversion_id's lock, one of an instance's 3 on a Postgres server): a postback of one line
   * item's late conversions holds one such lock at a time, and leaves the others to everyone
   * else's conversions (rev42 R1). At most LATE_TURNS_WAITING of a line item wait or run; one more
   * is answered 503 at once, nothing stored, and retried.
   */
  async lateTurn<T>(
    event: TrackedEvent,
    nowMs: number,
    budgets: { budgetNanos: number; lifetimeBudgetNanos: number } | undefined,
    step: (turn: LateTurn) => Promise<T>,
  ): Promise<T> {
    if (!this.readsSpend(event, nowMs, budgets)) return step(NO_TURN);
    const lineItemId = event.line_item_id;
    return this.inTurn(lineItemId, undefined, () => step({ lineItemId }));
  }

  /**
   * Runs `step` in the late turns of every one of `lineItemIds`, for an import's batch of their lines
   * (importCeilings.ts): its judgement and its write, so that a late conversion (or another import)
   * of those line items is judged before or after them, and each spend read sees the other's events
   * (try44 F3: an import and a postback of the same line item and day, each judged by a read that
   * did not see the other, billed 204 USD against a day's 200). The turns are taken one after the
   * other in id order, so that two imports never wait for each other's, and without the bound a
   * postback's conversions meet: an import is one request, and waits for those queued before it.
   * `step` is given the line items whose turn someone else took since `holder` (the import) last
   * held it, or that it never held: their spend must be read again, the others' is as the import
   * left it. The line items' records are kept for that until endLateTurns(holder).
   */
  async inLateTurns<T>(lineItemIds: readonly string[], holder: object, step: (takenSince: ReadonlySet<string>) => Promise<T>): Promise<T> {
    const ordered = [...lineItemIds].sort();
    const takenSince = new Set<string>();
    const enter = (index: number): Promise<T> => {
      if (index === ordered.length) return step(takenSince);
      const lineItemId = ordered[index]!;
      return this.inTurn(lineItemId, holder, (othersSince) => {
        if (othersSince) takenSince.add(lineItemId);
        return enter(index + 1);
      });
    };
    return enter(0);
  }

  /** Lets go of the line items' records inLateTurns kept for `holder`: its import ended. */
  endLateTurns(holder: object): void {
    for (const [lineItemId, turns] of this.lateTurns) {
      if (turns.keptBy?.delete(holder)) this.forgetIdle(lineItemId, turns);
    }
  }

  /**
   * Runs `step` once the line item's turns before it ran, given whether the last of them was not
   * `holder`'s (an import's; undefined for a late event, which is refused past LATE_TURNS_WAITING).
   */
  private inTurn<T>(lineItemId: string, holder: object | undefined, step: (othersSince: boolean) => Promise<T>): Promise<T> {
    let turns = this.lateTurns.get(lineItemId);
    if (turns === undefined) this.lateTurns.set(lineItemId, (turns = { last: Promise.resolve(), waiting: 0, holder: undefined, keptBy: undefined }));
    if (holder === undefined && turns.waiting >= LATE_TURNS_WAITING) throw new ApiError('unavailable', LATE_TURNS_FULL);
    turns.waiting += 1;
    const queue = turns;
    const turn = queue.last.then(() => {
      // A record the holder never held has none, or another's.
      const othersSince = queue.holder !== holder;
      queue.holder = holder;
      if (holder !== undefined) (queue.keptBy ??= new Set()).add(holder);
      return step(othersSince);
    });
    queue.last = turn.then(
      () => undefined,
      () => undefined,
    );
    void queue.last.then(() => {
      queue.waiting -= 1;
      this.forgetIdle(lineItemId, queue);
    });
    return turn;
  }

  /** Forgets a line item's turns when none waits or runs and no import keeps them. */
  private forgetIdle(lineItemId: string, turns: LateTurns): void {
    if (turns.waiting === 0 && (turns.keptBy?.size ?? 0) === 0 && this.lateTurns.get(lineItemId) === turns) this.lateTurns.delete(lineItemId);
  }

  /**
   * For a valid event judge() stored over a spend ceiling while its line item's unwritten spend holds
   * impressions or clicks not yet checked for repeats: takes out of that spend those that repeat a
   * serve ClickHouse already counted (an earlier run or another instance counted it, so this
   * process's ledger took the repeat for billable: it is certain to be written `duplicate`), and
   * answers what ClickHouse counted of those serves and of the waiting events' own once done. The caller
   * then judges the event again (judgeAgain). Undefined when there is nothing to check, which is
   * nearly always: only a judgement over a ceiling asks, and one check settles every unwritten event
   * of the line item, so past its ceiling (no billable event recorded since) the next ones do not ask
   * again. Without it, a repeat counted as billable spend until written (about one flush), and real
   * events judged meanwhile were stored unbilled (try42 F1: after a clean restart, 50 of 60 billable
   * impressions billed). The line item's judgements over a ceiling during a check wait for the same
   * one, which asks about their serves too (RepeatCheck.serveIds): a burst's repeats are all
   * settled by its one check.
   *
   * While ClickHouse cannot answer (slow, down) it costs the event at most `timeoutMs` from
   * `sinceMs` (its arrival), whatever rounds it takes, and the line item one check per timeoutMs:
   * the answer is undefined when the check failed or did not answer by then, or when the line item's
   * last check did so less than timeoutMs ago or still runs after its answer timed out (its read
   * queued behind a write that hangs: rev43 R2). The judgement then stands: an event stored over a
   * ceiling, never one billed twice or past one. Never rejects.
   */
  settleRepeats(event: TrackedEvent, sinceMs: number): Promise<Map<string, ServeHistory> | undefined> | undefined {
    if (event.ivt !== '' || !SPEND_CEILINGS.has(event.unbilled)) return undefined;
    const lineItemId = event.line_item_id;
    const nowMs = Date.now();
    const untilMs = sinceMs + this.repeats.timeoutMs;
    if (nowMs >= untilMs) return undefined;
    let check = this.checks.get(lineItemId);
    if (check !== undefined && !check.pending && nowMs >= check.retryAtMs) {
      this.checks.delete(lineItemId);
      check = undefined;
    }
    if (check === undefined) {
      // This turn's events held here are as unchecked as those recorded: it takes either.
      if (!this.heldSpend.has(lineItemId) && !this.repeats.hasUnsettledSpend(lineItemId)) return undefined;
      check = this.startCheck(lineItemId, event.campaign_id);
    }
    if (!check.pending) return undefined;
    check.serveIds.add(event.serve_id);
    // A check that may answer past this event's own time (a later round's, judgedAgain): it waits for the rest of its time only.
    return check.untilMs <= untilMs ? check.answer : withTimeout(check.answer, untilMs - nowMs).catch(() => undefined);
  }

  /** Starts a check of a line item's unwritten spend for repeats (settleRepeats), answered within timeoutMs. */
  private startCheck(lineItemId: string, campaignId: string): RepeatCheck {
    const { timeoutMs } = this.repeats;
    const serveIds = new Set<string>();
    // After the turn's spool write (EventPipeline.acceptInTurn, queued before), which records its
    // held events in the unwritten spend, so that the check takes them too, and the turn's other
    // judgements over a ceiling have joined it.
    const query = new Promise<void>((resolve) => setImmediate(resolve)).then(
      async () => (await this.repeats.settleRepeats(lineItemId, campaignId, serveIds)) ?? new Map<string, ServeHistory>(),
    );
    const answer = withTimeout(query, timeoutMs).catch(() => undefined);
    const check: RepeatCheck = { answer, untilMs: Date.now() + timeoutMs, pending: true, retryAtMs: 0, serveIds };
    this.checks.set(lineItemId, check);
    void answer.then((histories) => {
      check.pending = false;
      if (histories !== undefined) {
        if (this.checks.get(lineItemId) === check) this.checks.delete(lineItemId);
        return;
      }
      check.retryAtMs = Number.POSITIVE_INFINITY;
      void query.then(
        () => {
          check.retryAtMs = 0;
        },
        () => {
          check.retryAtMs = Date.now() + this.repeats.timeoutMs;
        },
      );
    });
    return check;
  }

  /**
   * Judges again, at its own `cost`, an event judge() stored over a spend ceiling, once
   * settleRepeats answered. Keeps the first verdict when the counters moved past the event's UTC
   * day meanwhile (a check that straddled midnight, the counters rolled by a serve): their spend is
   * of the new day then, and the event's own day's ceiling cannot be judged by them (rev43 R1: such a
   * pixel was billed past its day's 2x). Whether it was judged again.
   */
  judgeAgain(event: TrackedEvent, cost: number, nowMs: number): boolean {
    if (utcDay(event.event_time) !== this.countersDayAt(nowMs)) return false;
    event.unbilled = '';
    event.cost_nanos = cost;
    this.judge(event, nowMs);
    return true;
  }

  /** The UTC day the counters are of once rolled to `nowMs`: its own, or a later one a judgement or serve since moved them to. */
  private countersDayAt(nowMs: number): number {
    return Math.max(utcDay(nowMs), this.repeats.countersDay());
  }

  /**
   * judge(), then `store` (which holds, accepts or writes the event), for a conversion, which the
   * counters judge() reads cannot always judge:
   *
   * - one reported for an earlier UTC day than `nowMs`'s: the counters hold only today and this
   *   month, so it met no daily ceiling, and one of an earlier month only the lifetime one (try42
   *   F2: a CPA line item with a 1 USD daily budget was billed 30 USD for yesterday, 100 USD for a
   *   day of the month before, by conversions posted with their `occurred_at`);
   * - one of a line item the counters no longer keep: a line item that left the index is kept for
   *   the links' lifetime (TRACKING_LINK_TTL_SECONDS, 7 days), but its clicks convert for
   *   ATTRIBUTION_WINDOW_DAYS (30), and judge() let such a conversion through unjudged (try42 F4: a
   *   paused CPA line item with a 5 USD lifetime budget billed 17 USD). `budgets` are then its
   *   budgets as Postgres has them (undefined: none, no ceiling).
   *
   * Such an event's line item's billed spend of the event's day, month and in all is read
   * (ClickHouse's and what this instance has not written yet: SpendPacing.billedSpend, the reader an
   * import's lines are judged by) and it is judged against that day's 2x, that month's 30.4x and
   * the lifetime budget, as an import's line is (importCeilings.ts), in its line item's late turn (`turn`, from lateTurn), so that each read
   * sees the events before it. One that became such an event after its step began is not in its turn:
   * 503, nothing stored, and its retry takes the turn. Its message says why: its UTC day ended
   * while the step awaited (the lock, or a lookup under it) and a serve or judgement moved the
   * counters to the next day (before the step, lateTurn already judges by their day), or its line
   * item left the counters meanwhile (kept no longer than its links live).
   * Any other event is judged by the counters, without a query.
   */
  async judgeAndStore<T>(
    event: TrackedEvent,
    nowMs: number,
    budgets: { budgetNanos: number; lifetimeBudgetNanos: number } | undefined,
    turn: LateTurn,
    store: () => T | Promise<T>,
  ): Promise<T> {
    if (!this.readsSpend(event, nowMs, budgets)) {
      this.judge(event, nowMs);
      return store();
    }
    const lineItemId = event.line_item_id;
    const day = utcDay(event.event_time);
    // Not late when its step began, late now: its UTC day ended meanwhile (the counters moved on), or its line item left the counters.
    if (turn?.lineItemId !== lineItemId) throw new ApiError('unavailable', day !== this.countersDayAt(nowMs) ? DAY_ENDED_MEANWHILE : LINE_ITEM_LEFT_MEANWHILE);
    const billed = await this.billedSpend(new Map([[lineItemId, event.campaign_id]]), firstDayOfMonth(day));
    if (billed === undefined) throw new ApiError('unavailable', 'the line item\'s spend cannot be read yet to judge this conversion; retry later');
    // Nothing awaits from the judgement to `store`'s hold or accept: the next such event's read sees this one.
    this.judge(event, nowMs);
    const spend = spendOfDay(billed.get(lineItemId)!, day);
    const limits = this.lineItemOf(lineItemId) ?? budgets;
    if (limits !== undefined && event.cost_nanos > 0) {
      const reason = billingCeilingPassed({ budgetNanos: limits.budgetNanos, lifetimeBudgetNanos: limits.lifetimeBudgetNanos, spend }, event.cost_nanos, NOTHING_HELD, 'today');
      if (reason !== undefined) {
        event.unbilled = reason;
        event.cost_nanos = 0;
      }
    }
    return store();
  }

  /**
   * judgeAndStore in the click's line item's late turn, for a click readsSpend sends there: one
   * whose serve's lookup (linkTracker.ts learnServe, SERVE_LOOKUP_TIMEOUT_MS at most) straddled
   * midnight while a serve or judgement moved the counters to the next UTC day, whose near-empty
   * spend judge() would have billed it by, past its own day's 2x. It is judged against its own day's
   * billed spend, as a late conversion is. When that cannot be done (its line item's turn is full,
   * the spend cannot be read) it is stored over the daily ceiling, unbilled, rather than refused: a
   * click answers a person's navigation, and has no earlier verdict to keep (a pixel keeps its
   * first one: judgeAgain). Rejects only with `store`'s error.
   */
  async judgeLateClick<T>(event: TrackedEvent, nowMs: number, store: () => T): Promise<T> {
    let storing = false;
    const storeOnce = () => {
      storing = true;
      return store();
    };
    try {
      return await this.lateTurn(event, nowMs, undefined, (turn) => this.judgeAndStore(event, nowMs, undefined, turn, storeOnce));
    } catch (error) {
      if (storing) throw error;
      event.unbilled = 'over_daily_budget';
      event.cost_nanos = 0;
      return store();
    }
  }

  /**
   * Whether judgeAndStore reads the line item's spend for the event: a valid one that costs
   * something, of an earlier day than the counters' or of a line item the counters do not keep, with
   * budgets. A click (no `budgets`) only when its judgement came after the counters left its day
   * (judgeLateClick).
   */
  readsSpend(event: TrackedEvent, nowMs: number, budgets: { budgetNanos: number; lifetimeBudgetNanos: number } | undefined): boolean {
    if (event.ivt !== '' || event.cost_nanos <= 0) return false;
    const counted = this.lineItemOf(event.line_item_id, nowMs);
    // The counters' day, not nowMs's: after the awaits of a conversion's step (its click's lookup, the
    // lock) a serve at midnight may have moved them past the event's day, whose ceiling they then
    // cannot judge (rev43 R1's kind).
    if (utcDay(event.event_time) === this.countersDayAt(nowMs) && counted !== undefined) return false;
    return (counted ?? budgets) !== undefined;
  }

  /** Stores the reason in `unbilled` and makes the cost 0 when a valid event is over a ceiling; leaves any other event as it is. */
  judge(event: TrackedEvent, nowMs: number): void {
    if (event.ivt !== '') return;
    const lineItem = this.lineItemOf(event.line_item_id, nowMs);
    if (lineItem === undefined) return;
    const reason = outsideTargetCountry(lineItem, event) ? 'outside_target_country' : this.overCeiling(lineItem, event, nowMs);
    if (reason === undefined) return;
    event.unbilled = reason;
    event.cost_nanos = 0;
  }

  /**
   * Holds a judged event's cost and (for a capped line item's keyed user) impression against the
   * ceilings until release(event, held): for an event accepted but not yet recorded by the counters.
   */
  hold(event: TrackedEvent): number {
    if (event.ivt !== '') return 0;
    let held = 0;
    if (event.cost_nanos > 0) {
      let days = this.heldSpend.get(event.line_item_id);
      if (days === undefined) this.heldSpend.set(event.line_item_id, (days = new Map()));
      const day = utcDay(event.event_time);
      days.set(day, (days.get(day) ?? 0) + event.cost_nanos);
      held |= HELD_SPEND;
    }
    if (event.type === 'impression' && event.user_key !== '' && this.lineItemOf(event.line_item_id)?.frequencyCap) {
      let users = this.heldImpressions.get(event.line_item_id);
      if (users === undefined) this.heldImpressions.set(event.line_item_id, (users = new Map()));
      users.set(event.user_key, (users.get(event.user_key) ?? 0) + 1);
      held |= HELD_IMPRESSION;
    }
    return held;
  }

  /** Lets go of what hold() held: the counters have recorded the event, or it was not stored. */
  release(event: TrackedEvent, held: number): void {
    if ((held & HELD_SPEND) !== 0) {
      const days = this.heldSpend.get(event.line_item_id)!;
      const day = utcDay(event.event_time);
      const left = days.get(day)! - event.cost_nanos;
      if (left > 0) days.set(day, left);
      else if (days.delete(day) && days.size === 0) this.heldSpend.delete(event.line_item_id);
    }
    if ((held & HELD_IMPRESSION) !== 0) {
      const users = this.heldImpressions.get(event.line_item_id)!;
      const left = users.get(event.user_key)! - 1;
      if (left > 0) users.set(event.user_key, left);
      else if (users.delete(event.user_key) && users.size === 0) this.heldImpressions.delete(event.line_item_id);
    }
  }

  private overCeiling(lineItem: BilledLineItem, event: TrackedEvent, nowMs: number): UnbilledReason | undefined {
    const cap = lineItem.frequencyCap;
    if (cap !== null && event.type === 'impression' && event.user_key !== '') {
      const seen = (cap.counts.get(event.user_key) ?? 0) + (this.heldImpressions.get(event.line_item_id)?.get(event.user_key) ?? 0);
      if (seen >= cap.impressions) return 'over_frequency_cap';
    }
    const cost = event.cost_nanos;
    if (cost <= 0) return undefined;
    // The counter's `nanos` is of the current UTC day, `monthNanos` of its month (lineItemOf rolled them to nowMs's: SpendPacing.roll).
    const day = utcDay(event.event_time);
    return billingCeilingPassed(lineItem, cost, this.heldOf(event.line_item_id, day), periodOf(day, utcDay(nowMs)));
  }

  /**
   * What is held of a line item in all, in the UTC month of `day` and on `day`. Nearly always
   * everything held is of `day` (a turn's pixels): the months are worked out only for another day.
   */
  private heldOf(lineItemId: string, day: number): HeldSpend {
    const days = this.heldSpend.get(lineItemId);
    if (days === undefined) return NOTHING_HELD;
    let nanos = 0;
    let monthNanos = 0;
    let dayNanos = 0;
    let month = -1;
    for (const [heldDay, held] of days) {
      nanos += held;
      if (heldDay === day) {
        dayNanos += held;
        monthNanos += held;
        continue;
      }
      if (month < 0) month = utcMonthOfDay(day);
      if (utcMonthOfDay(heldDay) === month) monthNanos += held;
    }
    return { nanos, monthNanos, dayNanos };
  }
}

/**
 * Whether a valid impression or click of a line item that targets countries came from an address
 * whose own country is known and outside them (try41 F3): serving matched the countries against the
 * serve's `user.ip`, which the publisher's backend sends, so a publisher claiming a targeted
 * country for readers elsewhere got the (dearer) geo-targeted ads billed in full. Judged against the
 * line item's targeting now, from the index (what the advertiser pays for when the event arrives),
 * not a rule signed into the token: no byte more in every link, and the pixel already looks the line
 * item up here. An unknown country (no range holds the address) and a privacy relay's address (its
 * egress country is the relay's choice, not the reader's) are not judged. Two null checks for a
 * line item without country targeting: nothing else on the pixel's path.
 */
function outsideTargetCountry(lineItem: BilledLineItem, event: TrackedEvent): boolean {
  const include = lineItem.countriesInclude ?? null;
  const exclude = lineItem.countriesExclude ?? null;
  if (include === null && exclude === null) return false;
  // A conversion is a sale the advertiser reported: billed in full, even when its click (which cost
  // nothing, CPA) came from outside the countries (rev41 R2; docs/tracking.md says so).
  if (event.type === 'conversion' || event.country === '' || event.ip_class === 'relay') return false;
  return (include !== null && !include.has(event.country)) || (exclude !== null && exclude.has(event.country));
}

/** `promise`, or a rejection when it takes longer than `timeoutMs`; the promise itself goes on, and its failure is observed. */
function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  promise.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function periodOf(day: number, today: number): EventPeriod {
  if (day === today) return 'today';
  return day < today && utcMonthOfDay(day) === utcMonthOfDay(today) ? 'this_month' : 'earlier';
}
