import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { contractSchema } from '../helpers/contract.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { eventuallyServed, insertEvents, serve, servableLineItem } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { signTrackingToken, unverifiedTrackingClaims } from '../../src/tracking/trackingToken.js';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0';
const RESIDENTIAL_IP = '81.2.69.142';
const AWS_IP = '3.5.140.2';

let ctx: TestContext;

const matchesContract = contractSchema('#/components/schemas/RecentImpressionsResponse');

beforeAll(async () => {
  // X-Forwarded-For is trusted so that each pixel can come from the address the test names.
  ctx = await startTestApp({ TRUST_PROXY: 'true' });
});

afterAll(async () => {
  await ctx?.close();
});

/** A publisher with a placement that serves a CPC ad of a fresh advertiser (uncertified placements get CPC demand). */
async function servingPlacement() {
  const publisher = await createPublisher(ctx);
  const placement = await createPlacement(ctx, publisher.id);
  const advertiser = await createAdvertiser(ctx);
  const { lineItemId } = await servableLineItem(ctx, advertiser, {
    bids: { bid_type: 'cpc', bid_value: 1 },
    targeting: { placements: { include: [placement.id] } },
  });
  // The new token and placement reach the serving index within a refresh (100 ms in tests).
  await eventually(async () => {
    const response = await serve(ctx, publisher.token, { placement_id: placement.id });
    return response.statusCode === 200 && response.json().ad ? true : undefined;
  }, 'the placement to serve', 15_000);
  await eventuallyServed(ctx, publisher.token, { placement_id: placement.id }, lineItemId);
  return { publisher, placement };
}

/** Serves one ad and fetches its links the way a browser (or a server) at `ip` with `userAgent` would. */
async function serveAndTrack(publisherToken: string, placementId: string, ip: string, userAgent: string, click = false, fetchMetadata: Record<string, string> = {}) {
  const served = await serve(ctx, publisherToken, { placement_id: placementId });
  const { tracking } = served.json().ad as { tracking: { impression_url: string; click_url: string } };
  const headers = { ...fetchMetadata, 'x-forwarded-for': ip, 'user-agent': userAgent };
  const pixel = await ctx.app.inject({ method: 'GET', url: new URL(tracking.impression_url).pathname, headers });
  expect(pixel.statusCode).toBe(200);
  if (click) await ctx.app.inject({ method: 'GET', url: new URL(tracking.click_url).pathname, headers });
}

function check(placementId: string, token: string, query = '') {
  return ctx.app.inject({
    method: 'GET',
    url: `/v1/publisher/placements/${placementId}/recent-impressions${query}`,
    headers: { authorization: `Bearer ${token}` },
  });
}

/** Polls the check until it lists `count` impressions (the pipeline flushes every 100 ms in tests). */
function checkListing(placementId: string, token: string, count: number, query = '') {
  return eventually(async () => {
    const response = await check(placementId, token, query);
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    return data.impressions.length === count ? data : undefined;
  }, `${count} impressions in the integration check`, 15_000);
}

describe('GET /v1/publisher/placements/:id/recent-impressions', () => {
  it('answers 401 auth_missing without a token and 401 auth_invalid with an unknown one', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const missing = await ctx.app.inject({ method: 'GET', url: `/v1/publisher/placements/${placement.id}/recent-impressions` });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('auth_missing');
    const unknown = await check(placement.id, 'pt_not-a-real-token');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.code).toBe('auth_invalid');
  });

  it("answers 404 for another publisher's placement, an unknown placement and an id that cannot be one", async () => {
    const mine = await createPublisher(ctx);
    const other = await createPublisher(ctx);
    const theirs = await createPlacement(ctx, other.id);
    for (const id of [theirs.id, `pl-${randomUUID()}`, 'bad%20id']) {
      const response = await check(id, mine.token);
      expect(response.statusCode, id).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });

  it('lists a new placement with no impressions as an empty check', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const response = await check(placement.id, publisher.token);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      placement: { id: placement.id, certification: 'uncertified' },
      window: { hours: 24 },
      summary: {
        impressions: 0,
        from_browsers: 0,
        from_servers: 0,
        unknown: 0,
        browser_share: 0,
        server_share: 0,
        valid: 0,
        by_ip_class: {},
        by_ivt: {},
        by_requested_as: {},
        pixel_rule: { verdict: 'no_impressions', message: expect.stringMatching(/^No impressions in the window/) },
        forged: 0,
      },
      impressions: [],
    });
  });

  it('tells browser pixels from server-side ones, newest first, with masked addresses and no clicks', async () => {
    const { publisher, placement } = await servingPlacement();
    await serveAndTrack(publisher.token, placement.id, RESIDENTIAL_IP, CHROME, true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await serveAndTrack(publisher.token, placement.id, AWS_IP, CHROME);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await serveAndTrack(publisher.token, placement.id, RESIDENTIAL_IP, 'node');

    const data = await checkListing(placement.id, publisher.token, 3);
    expect(data.impressions).toEqual([
      {
        time: expect.any(String),
        origin: 'server',
        ip_masked: '81.2.69.0',
        ip_class: 'public',
        ip_network: '',
        // The publisher is not told which rule judged a client (the operator is: below).
        ivt: 'filtered',
        user_agent_family: 'bot',
        source: 'pixel',
        requested_as: 'no_metadata',
        fetch_dest: '',
      },
      {
        time: expect.any(String),
        origin: 'server',
        ip_masked: '3.5.140.0',
        ip_class: 'datacenter',
        ip_network: 'AS16509 Amazon Web Services',
        ivt: 'datacenter',
        user_agent_family: 'Chrome',
        source: 'pixel',
        requested_as: 'no_metadata',
        fetch_dest: '',
      },
      {
        time: expect.any(String),
        origin: 'browser',
        ip_masked: '81.2.69.0',
        ip_class: 'public',
        ip_network: '',
        ivt: null,
        user_agent_family: 'Chrome',
        source: 'pixel',
        requested_as: 'no_metadata',
        fetch_dest: '',
      },
    ]);
    const times = data.impressions.map((impression: { time: string }) => Date.parse(impression.time));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(data.summary).toEqual({
      impressions: 3,
      from_browsers: 1,
      from_servers: 2,
      unknown: 0,
      browser_share: 0.3333,
      server_share: 0.6667,
      valid: 1,
      by_ip_class: { public: 2, datacenter: 1 },
      by_ivt: { datacenter: 1, filtered: 1 },
      by_requested_as: { no_metadata: 3 },
      pixel_rule: { verdict: 'not_as_required', message: expect.stringContaining('2 of 3 impressions were requested by a server') },
      forged: 0,
    });
    expect(JSON.stringify(data)).not.toContain(RESIDENTIAL_IP);
    expect(matchesContract({ data }) ? [] : matchesContract.errors).toEqual([]);
  });

  it('shows how each pixel was requested (image, script fetch, no metadata) and says plainly whether the placement fires it as the spec requires', async () => {
    const imageLoad = { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site' };
    const scriptFetch = { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site' };

    const imagesOnly = await servingPlacement();
    await serveAndTrack(imagesOnly.publisher.token, imagesOnly.placement.id, RESIDENTIAL_IP, CHROME, false, imageLoad);
    await serveAndTrack(imagesOnly.publisher.token, imagesOnly.placement.id, RESIDENTIAL_IP, FIREFOX);
    const good = await checkListing(imagesOnly.placement.id, imagesOnly.publisher.token, 2);
    expect(good.impressions.map((impression: { requested_as: string; origin: string }) => [impression.requested_as, impression.origin]).sort()).toEqual([
      ['image', 'browser'],
      ['no_metadata', 'browser'],
    ]);
    expect(good.summary.by_requested_as).toEqual({ image: 1, no_metadata: 1 });
    expect(good.summary.pixel_rule).toEqual({ verdict: 'as_required', message: expect.stringMatching(/^The pixel fires the way the spec requires/) });

    const fetched = await servingPlacement();
    await serveAndTrack(fetched.publisher.token, fetched.placement.id, RESIDENTIAL_IP, CHROME, false, scriptFetch);
    await serveAndTrack(fetched.publisher.token, fetched.placement.id, RESIDENTIAL_IP, CHROME, false, imageLoad);
    const bad = await checkListing(fetched.placement.id, fetched.publisher.token, 2);
    expect(bad.impressions.find((impression: { requested_as: string }) => impression.requested_as === 'script_fetch')).toMatchObject({
      origin: 'browser',
      ivt: 'not_image_request',
      fetch_dest: 'empty',
    });
    expect(bad.summary.pixel_rule).toEqual({ verdict: 'not_as_required', message: expect.stringContaining('1 of 2 impressions were not image requests') });
    expect(matchesContract({ data: bad }) ? [] : matchesContract.errors).toEqual([]);

    const oldBrowsers = await servingPlacement();
    await serveAndTrack(oldBrowsers.publisher.token, oldBrowsers.placement.id, RESIDENTIAL_IP, FIREFOX);
    const unknown = await checkListing(oldBrowsers.placement.id, oldBrowsers.publisher.token, 1);
    expect(unknown.summary.pixel_rule.verdict).toBe('cannot_tell');
  });

  it("leaves out forged links naming the placement (bad_token): they never count for it nor change its verdict, and are counted apart", async () => {
    const imageLoad = { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site' };
    const victim = await servingPlacement();
    await serveAndTrack(victim.publisher.token, victim.placement.id, RESIDENTIAL_IP, CHROME, false, imageLoad);
    const before = await checkListing(victim.placement.id, victim.publisher.token, 1);
    expect(before.summary.pixel_rule.verdict).toBe('as_required');

    // Anyone with one real link of any placement can write the victim's placement id into it: the
    // signature then fails, and the pixel is stored as bad_token under the id it names.
    const other = await servingPlacement();
    const served = await serve(ctx, other.publisher.token, { placement_id: other.placement.id });
    const token = new URL(served.json().ad.tracking.impression_url).pathname.split('/').at(-1)!;
    const forged = signTrackingToken({ ...unverifiedTrackingClaims(token)!, p: victim.placement.id }, 'not-the-tracking-secret');
    for (let i = 1; i <= 5; i++) {
      const pixel = await ctx.app.inject({ method: 'GET', url: `/v1/t/i/${forged}`, headers: { 'x-forwarded-for': `3.5.140.${i}`, 'user-agent': 'curl/8.5.0' } });
      expect(pixel.statusCode).toBe(200);
    }
    const after = await eventually(async () => {
      const data = (await check(victim.placement.id, victim.publisher.token)).json().data;
      return data.summary.forged === 5 ? data : undefined;
    }, 'the 5 forged pixels counted apart', 15_000);
    expect(after.impressions).toEqual(before.impressions);
    expect(after.summary).toEqual({ ...before.summary, forged: 5 });
    expect(after.summary).toMatchObject({ impressions: 1, from_servers: 0, by_ivt: {}, pixel_rule: { verdict: 'as_required' } });
    expect(matchesContract({ data: after }) ? [] : matchesContract.errors).toEqual([]);
  });

  it('masks an IPv6 address to its /48 and names the browser family', async () => {
    const { publisher, placement } = await servingPlacement();
    await serveAndTrack(publisher.token, placement.id, '2a02:c7c:1234:5678:9abc::1', FIREFOX);
    const data = await checkListing(placement.id, publisher.token, 1);
    expect(data.impressions[0]).toMatchObject({ ip_masked: '2a02:c7c:1234::', user_agent_family: 'Firefox', origin: 'browser' });
  });

  it('reads an X-Forwarded-For hop a proxy wrote with a port or in brackets as its address, not as invalid_ip', async () => {
    const { publisher, placement } = await servingPlacement();
    for (const hop of ['81.2.69.142:4433', '[2a02:c7c:1234:5678:9abc::1]', '[2a02:c7c:1234:5678:9abc::1]:443']) {
      await serveAndTrack(publisher.token, placement.id, hop, FIREFOX);
    }
    const data = await checkListing(placement.id, publisher.token, 3);
    expect(data.impressions.map((impression: { ip_masked: string; ip_class: string; ivt: string | null }) => [impression.ip_masked, impression.ip_class, impression.ivt])).toEqual([
      ['2a02:c7c:1234::', 'public', null],
      ['2a02:c7c:1234::', 'public', null],
      ['81.2.69.0', 'public', null],
    ]);
  });

  it('shows only this placement: impressions of other placements are not listed', async () => {
    const publisher = await createPublisher(ctx);
    const [placement, sibling] = [await createPlacement(ctx, publisher.id), await createPlacement(ctx, publisher.id)];
    await insertEvents(ctx, [sampleEvent({ placement_id: sibling.id, publisher_id: publisher.id })]);
    await insertEvents(ctx, [sampleEvent({ placement_id: placement.id, publisher_id: publisher.id, ip_class: 'public' })]);
    const data = await checkListing(placement.id, publisher.token, 1);
    expect(data.summary.impressions).toBe(1);
  });

  it('limit caps the list (default 50) and hours bounds the window (default 24)', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const now = Date.now();
    const recent = Array.from({ length: 55 }, (_, index) =>
      sampleEvent({ placement_id: placement.id, event_time: now - index * 1000, ip_class: 'public', user_agent: CHROME }),
    );
    const twoDaysAgo = sampleEvent({ placement_id: placement.id, event_time: now - 48 * 3_600_000, ip_class: 'datacenter', ivt: 'datacenter' });
    await insertEvents(ctx, [...recent, twoDaysAgo]);

    const byDefault = await checkListing(placement.id, publisher.token, 50);
    expect(byDefault.window.hours).toBe(24);
    expect(byDefault.impressions[0].time).toBe(new Date(now).toISOString());
    expect(byDefault.summary).toMatchObject({ impressions: 50, from_browsers: 50, browser_share: 1 });

    const small = await checkListing(placement.id, publisher.token, 5, '?limit=5');
    expect(small.summary.impressions).toBe(5);

    const wide = await checkListing(placement.id, publisher.token, 56, '?limit=500&hours=72');
    expect(wide.impressions[55]).toMatchObject({ ip_class: 'datacenter', origin: 'server' });
    expect(Date.parse(wide.window.to) - Date.parse(wide.window.from)).toBe(72 * 3_600_000);
  });

  it('answers 400 bad_request naming each bad parameter', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    for (const query of ['?limit=0', '?limit=501', '?limit=abc', '?hours=0', '?hours=169']) {
      const response = await check(placement.id, publisher.token, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code).toBe('bad_request');
      expect(response.json().error.details[0].path).toBe(query.slice(1, query.indexOf('=')));
    }
  });
});

describe('GET /v1/admin/placements/:id/recent-impressions', () => {
  it('needs the admin token: none is 401 auth_missing, a publisher token is 401 auth_invalid', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const url = `/v1/admin/placements/${placement.id}/recent-impressions`;
    const missing = await ctx.app.inject({ method: 'GET', url });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('auth_missing');
    const wrong = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${publisher.token}` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('auth_invalid');
  });

  it('names every reason to the operator, and to the publisher only the integration faults it fixes (the others are filtered)', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const reasons = ['no_fetch_metadata', 'bot', 'impression_velocity', 'not_image_request', 'server_side', 'duplicate', ''];
    await insertEvents(ctx, reasons.map((ivt, index) => sampleEvent({ placement_id: placement.id, ivt, ip: RESIDENTIAL_IP, ip_class: 'public', user_agent: CHROME, event_time: Date.now() - index * 1000 })));
    const asPublisher = await checkListing(placement.id, publisher.token, reasons.length);
    expect(asPublisher.impressions.map((impression: { ivt: string | null }) => impression.ivt)).toEqual(['filtered', 'filtered', 'filtered', 'not_image_request', 'server_side', 'duplicate', null]);
    expect(asPublisher.summary.by_ivt).toEqual({ filtered: 3, not_image_request: 1, server_side: 1, duplicate: 1 });
    expect(matchesContract({ data: asPublisher }) ? [] : matchesContract.errors).toEqual([]);
    const asOperator = (await ctx.admin({ method: 'GET', url: `/v1/admin/placements/${placement.id}/recent-impressions` })).json().data;
    expect(asOperator.impressions.map((impression: { ivt: string | null }) => impression.ivt)).toEqual(reasons.map((reason) => reason || null));
    expect(asOperator.summary.valid).toBe(asPublisher.summary.valid);
  });

  it("shows any publisher's placement the same way, and 404 for an unknown one", async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    await insertEvents(ctx, [
      sampleEvent({ placement_id: placement.id, ip: '3.5.140.2', ip_class: 'datacenter', ip_network: 'AS16509 Amazon Web Services', ivt: 'datacenter', user_agent: 'undici' }),
    ]);
    const asPublisher = await checkListing(placement.id, publisher.token, 1);
    const asOperator = await ctx.admin({ method: 'GET', url: `/v1/admin/placements/${placement.id}/recent-impressions` });
    expect(asOperator.statusCode).toBe(200);
    expect(asOperator.json().data.impressions).toEqual(asPublisher.impressions);
    expect(asOperator.json().data.summary).toMatchObject({ from_servers: 1, server_share: 1 });

    const unknown = await ctx.admin({ method: 'GET', url: `/v1/admin/placements/pl-${randomUUID()}/recent-impressions` });
    expect(unknown.statusCode).toBe(404);
  });
});
