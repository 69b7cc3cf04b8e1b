import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATE_TURNS_WAITING } from '../../src/tracking/billingCeiling.js';
import { conversionEventId } from '../../src/tracking/conversionRecorder.js';
import { conversionLock } from '../../src/tracking/conversionLock.js';
import { importLock } from '../../src/tracking/importOnce.js';
import { testDatabaseUrl, type TestContext } from '../helpers/testApp.js';
import { startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import type { Advertiser } from '../helpers/servingFixtures.js';
import { earlierToday } from '../helpers/earlierToday.js';
import { eventually } from '../helpers/eventually.js';
import { convert as convertAs, cpaClicks, yesterdayNoon } from '../helpers/lateConversions.js';

/**
 * A nightly postback: many conversions of one CPA line item dated yesterday, sent at once. Each is
 * judged against its day's spend, read from ClickHouse, in its line item's late turn
 * (BillingCeiling.lateTurn): rev42 R1 found them queued inside the conversion lock, so on a
 * Postgres server one line item's postback kept the instance's 3 lock holders busy and every other
 * conversion with a conversion_id was answered 503 for its length; without conversion_id the queue
 * had no bound.
 */

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };
const USD = 1e9;

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher({ IVT_ALLOW_PRIVATE_IPS: 'true' }));
});
afterAll(async () => {
  await ctx.close();
});

/** A CPA line item (4 USD; 10 USD a day unless told, asap) and `count` valid clicks of it, from `firstMs` a second apart. */
const clicksOf = (count: number, firstMs: number, daily = 10) => cpaClicks(ctx, advertiser, publisher.id, count, firstMs, daily);
const convert = (click: { event_id: string; event_time: number }, conversionId?: string) => convertAs(ctx, advertiser, click, conversionId);

async function storedSpend(lineItemId: string, conversions: number): Promise<{ conversions: number; spend: number }> {
  return eventually(async () => {
    const result = await ctx.stores.ch.client.query({
      query: `SELECT toFloat64(count()) AS conversions, toFloat64(sum(cost_nanos)) AS spend FROM events_v1 WHERE line_item_id = {id:UUID} AND type = 'conversion'`,
      query_params: { id: lineItemId },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ conversions: number; spend: number }>();
    return row!.conversions >= conversions ? row : undefined;
  }, `${conversions} conversions in ClickHouse`);
}

describe("a postback of one line item's conversions dated yesterday", () => {
  // On a Postgres server, before the fix, every one of the other line item's conversions that came
  // while the postback's first conversions were in its queue was answered 503: the postback held
  // all 3 conversion-lock holders, waiting for each other's spend reads.
  it("leaves another line item's conversions with a conversion_id their lock holders: none is answered 503 meanwhile", async () => {
    const late = await clicksOf(30, yesterdayNoon(), 1000);
    // Today's, whatever the time of day (an hour back is yesterday's until 01:00 UTC: late too).
    const other = await clicksOf(30, earlierToday(), 1000);
    // Sent at once, as a postback sends them; each is answered in its turn.
    const postback = Promise.all(late.clicks.map((click, i) => convert(click, `night-${i}`)));
    let done = false;
    void postback.finally(() => (done = true));
    const answers: LightMyRequestResponse[] = [];
    for (const [i, click] of other.clicks.entries()) {
      if (done && answers.length > 0) break;
      answers.push(await convert(click, `today-${i}`));
    }
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    for (const answer of await postback) expect(answer.statusCode, answer.body).toBe(201);
    // All within 2x the daily budget of 1,000 USD: every one billed, each read saw the ones before.
    expect(await storedSpend(late.lineItemId, 30)).toEqual({ conversions: 30, spend: 120 * USD });
  });

  // Before the fix nothing bounded the queue: a postback client that timed out and retried a
  // conversion without conversion_id sent a new one while the first still waited, and both were billed.
  // The test holds the conversion lock of every conversion_id it sends, so the first to take the line
  // item's turn waits in it, and every other waits for that turn, however fast or slow they come:
  // exactly the bound is let in. Embedded PGlite only: there the lock is the process's and waits as
  // long as it is held; a server's lock waits 2 s (conversionLock.ts), then the turn moves on.
  it.skipIf(testDatabaseUrl)(`answers 503 with Retry-After, storing nothing, to those past the ${LATE_TURNS_WAITING} of a line item already waiting`, async () => {
    const late = await clicksOf(2 * LATE_TURNS_WAITING + 1, yesterdayNoon());
    const [stored, ...batch] = late.clicks;
    const first = await convert(stored!, 'stored');
    expect(first.statusCode, first.body).toBe(201);
    const lock = conversionLock(ctx.stores.db);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = batch.map((click, i) => lock(conversionEventId(click.event_id, `held-${i}`), () => released));
    const answered: LightMyRequestResponse[] = [];
    const sent = batch.map((click, i) => convert(click, `held-${i}`).then((answer) => (answered.push(answer), answer)));
    // Twice the bound at once: the first let in waits in its turn for its lock, the others let in for that turn.
    const refused = await eventually(async () => (answered.length >= LATE_TURNS_WAITING ? [...answered] : undefined), 'the refusals', 60_000);
    for (const answer of refused) {
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.headers['retry-after']).toBeDefined();
      expect(answer.json().error.code).toBe('unavailable');
    }
    // A retry of a stored conversion is answered without a turn, while the line item's queue is full (rev43 R4).
    const again = await convert(stored!, 'stored');
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toEqual(first.json().data);
    release();
    await Promise.all(held);
    const answers = await Promise.all(sent);
    expect(answers.filter((answer) => answer.statusCode === 503)).toHaveLength(LATE_TURNS_WAITING);
    const taken = answers.filter((answer) => answer.statusCode !== 503);
    expect(taken).toHaveLength(LATE_TURNS_WAITING);
    for (const answer of taken) expect(answer.statusCode, answer.body).toBe(201);
    // Judged one after the other against yesterday's 2x (20 USD), the stored one's 4 USD first: 4 more billed, the rest at cost 0.
    expect(taken.filter((answer) => answer.json().data.cost_usd === 4)).toHaveLength(4);
    expect(await storedSpend(late.lineItemId, LATE_TURNS_WAITING + 1)).toEqual({ conversions: LATE_TURNS_WAITING + 1, spend: 20 * USD });
  });

  // The same bound on a PostgreSQL server, where nothing in a turn can be held from the test: the
  // conversion lock is an advisory lock that waits 2 s, then the turn moves on (rev44 R4), and the
  // turns (BillingCeiling, in trackingRoutes) and the spend reader are the app's own. So this relies
  // on timing, and says which: a refusal needs the 51st of the 100 to reach the line item's queue
  // while 50 are still in it. The 100 (no conversion_id, so no lock) run their lookups before the
  // queue at once (key, click in ClickHouse, pricing in Postgres, spread over the pool's
  // connections), while the turns run one after another, each a spend read from ClickHouse and a
  // spool write; session 44 saw 49 to 50 of the 100 refused. Were a turn shorter than about a
  // fiftieth of the time the 100 lookups take from first to last, the queue would drain as fast as
  // it fills and none would be refused: `refused.length > 0` is the one assertion that could then fail.
  // The exact count is asserted by the embedded test above, which holds the turn. What holds
  // whatever the timing: those refused are 503 with Retry-After, and only those taken are stored.
  it.runIf(testDatabaseUrl)(`answers 503 with Retry-After, storing nothing, to those past the ${LATE_TURNS_WAITING} of a line item already waiting (PostgreSQL server)`, async () => {
    const late = await clicksOf(2 * LATE_TURNS_WAITING, yesterdayNoon());
    const answers = await Promise.all(late.clicks.map((click) => convert(click)));
    const taken = answers.filter((answer) => answer.statusCode === 201);
    const refused = answers.filter((answer) => answer.statusCode !== 201);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.headers['retry-after']).toBeDefined();
      expect(answer.json().error).toEqual({ code: 'unavailable', message: expect.stringContaining(`at most ${LATE_TURNS_WAITING}`) });
    }
    // Those taken judged one after the other against yesterday's 2x (20 USD): 5 billed, the rest at cost 0.
    expect(taken.filter((answer) => answer.json().data.cost_usd === 4)).toHaveLength(5);
    expect(await storedSpend(late.lineItemId, taken.length)).toEqual({ conversions: taken.length, spend: 20 * USD });
  });

  // rev43 R4: each retry of a stored conversion wrote its first time to conversion_times again and,
  // dated yesterday, waited for a turn in its line item's queue only to be answered 200, and past the
  // bound was answered 503: a postback resent whole after its client timed out could not be answered.
  it(`answers a postback resent whole, already stored, 200 for each, more than ${LATE_TURNS_WAITING} at once: no turn taken, nothing written`, async () => {
    const count = LATE_TURNS_WAITING + 10;
    const late = await clicksOf(count, yesterdayNoon(), 1000);
    // Stored first, at most the bound at once.
    const first: LightMyRequestResponse[] = [];
    for (let from = 0; from < count; from += LATE_TURNS_WAITING) {
      first.push(...(await Promise.all(late.clicks.slice(from, from + LATE_TURNS_WAITING).map((click, i) => convert(click, `night-${from + i}`)))));
    }
    for (const answer of first) expect(answer.statusCode, answer.body).toBe(201);
    // A row's xmin is the transaction that wrote it last: an upsert that finds the row writes it again.
    const timesWritten = async () =>
      (
        await ctx.stores.db.query<{ event_id: string; xmin: string }>('SELECT event_id, xmin::text AS xmin FROM conversion_times WHERE event_id = ANY($1) ORDER BY event_id', [
          first.map((answer) => answer.json().data.id as string),
        ])
      ).rows;
    const before = await timesWritten();
    expect(before).toHaveLength(count);
    const again = await Promise.all(late.clicks.map((click, i) => convert(click, `night-${i}`)));
    for (const [i, answer] of again.entries()) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json().data).toEqual(first[i]!.json().data);
    }
    expect(await timesWritten()).toEqual(before);
    expect(await storedSpend(late.lineItemId, count)).toEqual({ conversions: count, spend: count * 4 * USD });
  });
});

describe("an import and a postback of one line item's conversions of yesterday", () => {
  // try44 F3: the import read the line item's spend once, at its first line, and judged every later
  // line by it: late conversions billed meanwhile were not seen, and the day passed 2x (204 USD of
  // 200 in 3 of 10 runs). The test holds the lock of the import's second range of lines, so the
  // postback is judged and stored between its two ranges, every run. Embedded PGlite only: there the
  // range's lock is the process's and waits as long as it is held; a server's waits 10 s (importOnce.ts).
  it.skipIf(testDatabaseUrl)("never bill the day past 2x together: the import's later lines are judged by a spend read that sees the postback's", async () => {
    // 4 USD a conversion, 10 USD a day: yesterday bills 20 USD at most.
    const late = await clicksOf(4, yesterdayNoon());
    const at = new Date(yesterdayNoon() + 3_600_000).toISOString();
    const line = (i: number) => JSON.stringify({ type: 'conversion', time: at, line_item_id: late.lineItemId, placement_id: late.clicks[0]!.placement_id, ip: `73.162.11.${10 + i}` });
    // One conversion in the import's first range of lines (1 to 1000), five in its second.
    const payload = [line(0), ...Array.from({ length: 999 }, () => ''), ...[1, 2, 3, 4, 5].map(line)].join('\n') + '\n';
    const key = `import-and-postback-${late.lineItemId}`;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = importLock(ctx.stores.db)(`${key}\n1001`, () => released);
    const imported = ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson', 'idempotency-key': key }, payload });
    // The first range is written (4 USD); the second waits for its lock.
    await storedSpend(late.lineItemId, 1);
    // The postback, meanwhile: each judged by a read that sees the import's first line, all four fit (4 + 16 = 20 USD).
    const answers = await Promise.all(late.clicks.map((click, i) => convert(click, `postback-${i}`)));
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(201);
      expect(answer.json().data.cost_usd).toBe(4);
    }
    release();
    await held;
    const response = await imported;
    expect(response.statusCode, response.body).toBe(200);
    // The second range's five lines find the day at 2x: stored unbilled.
    expect(response.json().data).toMatchObject({ accepted: 6, rejected: 0, unbilled: 5 });
    expect(await storedSpend(late.lineItemId, 10)).toEqual({ conversions: 10, spend: 20 * USD });
  });
});
