import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/testApp.js';
import { certifyPlacement, createCertifiedPlacement, createPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { eventuallyServed, insertEvents, servableLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { signedToken, serveClaims, trackedLineItem } from '../helpers/trackingFixtures.js';
import { judgeServerSideTraffic, serverSideVerdict } from '../../src/placements/autoRevocation.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher({ AUTO_REVOCATION_INTERVAL_MS: '200' }));
});
afterAll(async () => {
  await ctx.close();
});

async function placementState(id: string) {
  const response = await ctx.admin({ method: 'GET', url: `/v1/admin/placements/${id}` });
  return response.json().data as { certification: string; history: Array<{ from: string; to: string; actor: string; reason: string }> };
}

function impressions(placementId: string, count: number, overrides: Parameters<typeof sampleEvent>[0] = {}) {
  return Array.from({ length: count }, () => sampleEvent({ placement_id: placementId, publisher_id: publisher.id, ...overrides }));
}

/** Impressions of `count` serves to `users` distinct users (keyed user ids, as serving signs them), in turn. */
function impressionsOfUsers(placementId: string, count: number, users: number, overrides: Parameters<typeof sampleEvent>[0] = {}) {
  const tag = uniqueWord();
  return impressions(placementId, count, overrides).map((event, index) => ({ ...event, user_key: `${tag}-user-${index % users}` }));
}

const datacenter = { ivt: 'datacenter', ip: '3.5.140.2', ip_class: 'datacenter', ip_network: 'AS16509 Amazon', cost_nanos: 0 };

const HOUR = 3_600_000;

/** The same traffic in each of the last `windows` hours (windows of the default 60 minutes), 10 minutes into each. */
function everyHour(windows: number, traffic: (overrides: { event_time: number }) => ReturnType<typeof impressions>) {
  const now = Date.now();
  return Array.from({ length: windows }, (_, hour) => traffic({ event_time: now - hour * HOUR - 10 * 60_000 })).flat();
}

/** Certifies the placement as if 7 hours ago: more than the windows auto-revocation looks back on. */
async function certifiedLongAgo(placementId: string): Promise<void> {
  await certifyPlacement(ctx, placementId);
  await ctx.stores.db.query(`UPDATE placement_certification_history SET created_at = created_at - interval '7 hours' WHERE placement_id = $1`, [placementId]);
}

const defaultThresholds = {
  AUTO_REVOCATION_WINDOW_MINUTES: 60,
  AUTO_REVOCATION_DATACENTER_IMPRESSIONS: 20,
  AUTO_REVOCATION_DATACENTER_SHARE: 0.5,
  AUTO_REVOCATION_MIN_IMPRESSIONS: 100,
  AUTO_REVOCATION_MIN_USERS: 10,
  AUTO_REVOCATION_WINDOWS: 6,
};

/** Waits until ClickHouse holds `count` impressions of the placement flagged `datacenter`. */
async function datacenterImpressionsStored(placementId: string, count: number, what: string): Promise<void> {
  await eventually(async () => {
    const result = await ctx.stores.ch.client.query({
      query: `SELECT count() AS n FROM events_v1 WHERE placement_id = {id:String} AND ivt = 'datacenter'`,
      query_params: { id: placementId },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ n: string }>();
    return Number(row!.n) === count ? true : undefined;
  }, what);
}

describe('auto-revocation of certified placements', () => {
  it('revokes when most serves, of most users, of each of the last 6 hours had their pixel fetched from a data center; records why, and the next serve gets no tCPM', async () => {
    const word = uniqueWord();
    const placement = (await createPlacement(ctx, publisher.id)).id;
    await certifiedLongAgo(placement);
    const cpm = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 50_000 }, targeting: { keywords: { include: [word] } } });
    const cpc = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 5 }, targeting: { keywords: { include: [word] } } });
    const body = { placement_id: placement, context: { query: word, response: '' } };
    await eventuallyServed(ctx, publisher.token, body, cpm.lineItemId);

    await insertEvents(ctx, everyHour(6, (at) => [...impressionsOfUsers(placement, 100, 25, { ...datacenter, ...at }), ...impressionsOfUsers(placement, 20, 5, at)]));
    const revoked = await eventually(async () => {
      const state = await placementState(placement);
      return state.certification === 'revoked' ? state : undefined;
    }, 'auto-revocation');
    expect(revoked.history.at(-1)).toMatchObject({ from: 'certified', to: 'revoked', actor: 'auto-revocation' });
    expect(revoked.history.at(-1)!.reason).toMatch(
      /^100 of 120 serves \(of 25 of 30 users\) in the last 60 minutes had their impression requested from data-center addresses or by server code \(server-side pixel requests, from 1 client networks\), and most serves and users of each of the 5 windows before it did; revocation takes 50% of at least 100 serves and of their users, at least 10 of them, in each of 6 windows of 60 minutes on end$/,
    );
    await eventuallyServed(ctx, publisher.token, body, cpc.lineItemId);
  });

  it('never revokes for a reader who chats and fetches the pixels of the serves they got from a cloud server: the placement is flagged for an operator', async () => {
    const item = await trackedLineItem(ctx);
    await certifyPlacement(ctx, item.placementId);
    // The placement's readers, in their browsers.
    await insertEvents(ctx, impressionsOfUsers(item.placementId, 200, 50));
    // One reader's 25 serves (their keyed user id signed in each), pixels fetched from AWS.
    for (let serve = 0; serve < 25; serve++) {
      const token = signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000, { k: 'chatting-attacker' }));
      await ctx.app.inject({ method: 'GET', url: `/v1/t/i/${token}`, remoteAddress: '3.5.140.2', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0.0.0' } });
    }
    await datacenterImpressionsStored(item.placementId, 25, 'the cloud-fetched impressions in ClickHouse');
    const judged = await judgeServerSideTraffic(ctx.stores.db, ctx.stores.ch, defaultThresholds);
    expect(judged.revoked).not.toContain(item.placementId);
    expect(judged.flagged.find((flag) => flag.placement_id === item.placementId)?.reason).toMatch(/^25 of 225 serves \(of 1 of 51 users\)/);
    expect((await placementState(item.placementId)).certification).toBe('certified');
  });

  it('never revokes for one reader who makes most of a small placement\'s traffic from a cloud server, nor for serves without user ids: flagged', async () => {
    const oneReader = await createCertifiedPlacement(ctx, publisher.id);
    const noUserIds = await createCertifiedPlacement(ctx, publisher.id);
    await insertEvents(ctx, [
      ...impressionsOfUsers(oneReader, 150, 1, datacenter),
      ...impressionsOfUsers(oneReader, 20, 10),
      ...impressions(noUserIds, 150, datacenter),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await placementState(oneReader)).certification).toBe('certified');
    expect((await placementState(noUserIds)).certification).toBe('certified');
    const judged = await judgeServerSideTraffic(ctx.stores.db, ctx.stores.ch, defaultThresholds);
    expect(judged.flagged.map((flag) => flag.placement_id)).toEqual(expect.arrayContaining([oneReader, noUserIds]));
  });

  it('leaves a placement certified below the thresholds, and ignores clicks, old traffic and traffic before its certification', async () => {
    const placement = (await createPlacement(ctx, publisher.id)).id;
    await insertEvents(ctx, impressions(placement, 30, datacenter));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await certifyPlacement(ctx, placement);
    await insertEvents(ctx, [
      ...impressionsOfUsers(placement, 19, 19, datacenter),
      ...impressions(placement, 5, { ...datacenter, type: 'click' }),
      ...impressions(placement, 5, { ...datacenter, event_time: Date.now() - 7 * HOUR }),
      ...impressions(placement, 380),
    ]);
    // Several runs of the job (every 200 ms) have passed.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await placementState(placement)).certification).toBe('certified');
  });

  it('never revokes for one link replayed: 20 pixel requests of one serve from a cloud address, then from 20 cloud networks, are one serve', async () => {
    const item = await trackedLineItem(ctx);
    await certifyPlacement(ctx, item.placementId);
    const token = signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000));
    const cloudAddresses = Array.from({ length: 20 }, (_, index) => `3.5.${140 + index}.2`);
    for (const remoteAddress of [...Array<string>(20).fill('3.5.140.2'), ...cloudAddresses]) {
      await ctx.app.inject({ method: 'GET', url: `/v1/t/i/${token}`, remoteAddress, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0.0.0' } });
    }
    await datacenterImpressionsStored(item.placementId, 40, 'the replayed impressions in ClickHouse');
    // The job's own check, run now that all 40 requests are stored (it also runs every 200 ms).
    const judged = await judgeServerSideTraffic(ctx.stores.db, ctx.stores.ch, defaultThresholds);
    expect(judged.revoked).not.toContain(item.placementId);
    expect(judged.flagged.map((flag) => flag.placement_id)).not.toContain(item.placementId);
    expect((await placementState(item.placementId)).certification).toBe('certified');
  });

  it('revokes a placement whose server code fetches the pixels of its serves from a relay address (CF-Worker, ivt server_side)', async () => {
    const placement = (await createPlacement(ctx, publisher.id)).id;
    await certifiedLongAgo(placement);
    const worker = { ivt: 'server_side', ip: '104.28.1.1', ip_class: 'relay', ip_network: 'AS13335 Cloudflare', cost_nanos: 0 };
    await insertEvents(ctx, everyHour(6, (at) => impressionsOfUsers(placement, 100, 10, { ...worker, ...at })));
    const revoked = await eventually(async () => {
      const state = await placementState(placement);
      return state.certification === 'revoked' ? state : undefined;
    }, 'auto-revocation');
    expect(revoked.history.at(-1)!.reason).toMatch(/^100 of 100 serves \(of 10 of 10 users\)/);
  });

  it('revokes a placement whose forged pixels (bad_token, naming it) outnumber its server-side ones: a forged link counts for nothing', async () => {
    const placement = (await createPlacement(ctx, publisher.id)).id;
    await certifiedLongAgo(placement);
    const worker = { ivt: 'server_side', ip: '104.28.1.1', ip_class: 'relay', ip_network: 'AS13335 Cloudflare', cost_nanos: 0 };
    const forged = { ivt: 'bad_token', cost_nanos: 0 };
    await insertEvents(ctx, everyHour(6, (at) => [...impressionsOfUsers(placement, 100, 10, { ...worker, ...at }), ...impressionsOfUsers(placement, 200, 200, { ...forged, ...at })]));
    const revoked = await eventually(async () => {
      const state = await placementState(placement);
      return state.certification === 'revoked' ? state : undefined;
    }, 'auto-revocation');
    expect(revoked.history.at(-1)!.reason).toMatch(/^100 of 100 serves \(of 10 of 10 users\)/);
  });

  it("never revokes for a competitor who resets a cookie-keyed user.id 10 times and fetches 100 serves' pixels from one cloud network: flagged, until it has kept that up for 6 hours", async () => {
    const item = await trackedLineItem(ctx);
    await certifiedLongAgo(item.placementId);
    // A small placement: 20 serves an hour, of 5 readers, in their browsers.
    await insertEvents(ctx, everyHour(6, (at) => impressionsOfUsers(item.placementId, 20, 5, at)));
    // The competitor's 100 serves, under 10 user ids (a cookie reset 10 times), pixels fetched from one AWS /24.
    for (let serve = 0; serve < 100; serve++) {
      const token = signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000, { k: `reset-cookie-${serve % 10}` }));
      const pixel = await ctx.app.inject({ method: 'GET', url: `/v1/t/i/${token}`, remoteAddress: `3.5.140.${1 + (serve % 200)}`, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0.0.0' } });
      expect(pixel.statusCode).toBe(200);
    }
    await datacenterImpressionsStored(item.placementId, 100, 'the cloud-fetched impressions in ClickHouse');
    // Several runs of the job (every 200 ms) have seen them.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await placementState(item.placementId)).certification).toBe('certified');
    const judged = await judgeServerSideTraffic(ctx.stores.db, ctx.stores.ch, defaultThresholds);
    expect(judged.revoked).not.toContain(item.placementId);
    expect(judged.flagged.find((flag) => flag.placement_id === item.placementId)?.reason).toMatch(
      /^100 of 120 serves \(of 10 of 15 users\) in the last 60 minutes .*from 1 client networks\); revocation takes .* in each of 6 windows of 60 minutes on end \(1 of them so far\)$/,
    );

    // Kept up for 4 hours more it is still flagged; the sixth hour on end is what the publisher's own backend shows.
    const more = (hours: number[]) => hours.flatMap((hour) => impressionsOfUsers(item.placementId, 100, 10, { ...datacenter, event_time: Date.now() - hour * HOUR - 10 * 60_000 }));
    await insertEvents(ctx, more([1, 2, 3, 4]));
    const later = await judgeServerSideTraffic(ctx.stores.db, ctx.stores.ch, defaultThresholds);
    expect(later.flagged.find((flag) => flag.placement_id === item.placementId)?.reason).toMatch(/\(5 of them so far\)$/);
    expect((await placementState(item.placementId)).certification).toBe('certified');
    await insertEvents(ctx, more([5]));
    const revoked = await eventually(async () => {
      const state = await placementState(item.placementId);
      return state.certification === 'revoked' ? state : undefined;
    }, 'auto-revocation');
    expect(revoked.history.at(-1)).toMatchObject({ actor: 'auto-revocation' });
  });

  it('counts in its reason the windows on end back from the latest that meet the rule, as revocation does: one without the traffic cuts off those before it', async () => {
    const placement = (await createPlacement(ctx, publisher.id)).id;
    await certifiedLongAgo(placement);
    const backend = (hours: number[]) => hours.flatMap((hour) => impressionsOfUsers(placement, 100, 10, { ...datacenter, event_time: Date.now() - hour * HOUR - 10 * 60_000 }));
    // Five of the six windows, all but the one before the latest.
    await insertEvents(ctx, backend([0, 2, 3, 4, 5]));
    const judged = await judgeServerSideTraffic(ctx.stores.db, ctx.stores.ch, defaultThresholds);
    expect(judged.revoked).not.toContain(placement);
    expect(judged.flagged.find((flag) => flag.placement_id === placement)?.reason).toMatch(/in each of 6 windows of 60 minutes on end \(1 of them so far\)$/);
    expect((await placementState(placement)).certification).toBe('certified');

    // The missing window met too: six on end, revoked.
    await insertEvents(ctx, backend([1]));
    const revoked = await eventually(async () => {
      const state = await placementState(placement);
      return state.certification === 'revoked' ? state : undefined;
    }, 'auto-revocation');
    expect(revoked.history.at(-1)).toMatchObject({ actor: 'auto-revocation' });
  });

  it('never revokes an uncertified placement (there is nothing to revoke)', async () => {
    const placement = (await createPlacement(ctx, publisher.id)).id;
    await insertEvents(ctx, impressions(placement, 25, datacenter));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const state = await placementState(placement);
    expect(state.certification).toBe('uncertified');
    expect(state.history).toHaveLength(1);
  });
});

describe('auto-revocation thresholds', () => {

  it.each([
    [{ datacenter: 100, total: 100, users: 10, allUsers: 10 }, 'revoke'],
    [{ datacenter: 50, total: 100, users: 10, allUsers: 20 }, 'revoke'],
    [{ datacenter: 49, total: 100, users: 49, allUsers: 60 }, 'flag'],
    [{ datacenter: 99, total: 99, users: 99, allUsers: 99 }, 'flag'],
    [{ datacenter: 100, total: 100, users: 9, allUsers: 9 }, 'flag'],
    [{ datacenter: 100, total: 100, users: 0, allUsers: 0 }, 'flag'],
    [{ datacenter: 100, total: 150, users: 10, allUsers: 21 }, 'flag'],
    [{ datacenter: 20, total: 10_000, users: 1, allUsers: 3000 }, 'flag'],
    [{ datacenter: 19, total: 10_000, users: 19, allUsers: 3000 }, ''],
    [{ datacenter: 0, total: 0, users: 0, allUsers: 0 }, ''],
  ])('%o -> %s', (counts, expected) => {
    expect(serverSideVerdict(counts, defaultThresholds)).toBe(expected);
  });
});
