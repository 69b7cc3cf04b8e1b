import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/testApp.js';
import { createPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { eventuallyServed, serve, servableLineItem, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { detailPaths } from '../helpers/errorDetails.js';
import { localTime } from '../../src/serving/localClock.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher());
});
afterAll(async () => {
  await ctx.close();
});

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** A window of [minute - 20, minute + 20) on the local day of a UTC instant shifted by offsetHours, clamped to that day. */
function windowAround(nowMs: number, offsetHours: number) {
  const local = new Date(nowMs + offsetHours * 3_600_000);
  const minute = local.getUTCHours() * 60 + local.getUTCMinutes();
  return { days: [DAYS[(local.getUTCDay() + 6) % 7]!], start: hhmm(Math.max(0, minute - 20)), end: hhmm(Math.min(1440, minute + 20)) };
}

describe('dayparts', () => {
  it('reads the New York clock with daylight saving: noon is 16:00 UTC in July and 17:00 UTC in January', () => {
    expect(localTime('America/New_York', Date.parse('2026-07-01T16:00:00Z'))).toEqual({ day: 2, minute: 12 * 60 });
    expect(localTime('America/New_York', Date.parse('2026-01-07T17:00:00Z'))).toEqual({ day: 2, minute: 12 * 60 });
    // The spring-forward morning: 06:59 UTC is 01:59 EST, 07:00 UTC is 03:00 EDT.
    expect(localTime('America/New_York', Date.parse('2026-03-08T06:59:00Z')).minute).toBe(1 * 60 + 59);
    expect(localTime('America/New_York', Date.parse('2026-03-08T07:00:00Z')).minute).toBe(3 * 60);
  });

  it('refuses a bad zone, day, time or order, naming each', async () => {
    const call = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [uniqueWord()] } } });
    const refused = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, {
      dayparts: { timezone: 'EST', windows: [{ days: ['monday'], start: '9:00', end: '17:00' }, { days: ['sat'], start: '18:00', end: '09:00' }] },
    });
    expect(refused.statusCode).toBe(422);
    expect(detailPaths(refused).sort()).toEqual([
      'dayparts.timezone',
      'dayparts.windows.0.days.0',
      'dayparts.windows.0.start',
      'dayparts.windows.1.end',
    ]);
  });

  it('refuses a window that is null or not an object with 422 naming it, not 500', async () => {
    const call = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [uniqueWord()] } } });
    const refused = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, {
      dayparts: { timezone: 'America/New_York', windows: [null, 'x', { days: ['mon'], start: '09:00', end: '17:00' }] },
    });
    expect(refused.statusCode).toBe(422);
    expect(detailPaths(refused)).toEqual(['dayparts.windows.0', 'dayparts.windows.1']);
  });

  it('serves inside a window on the America/New_York clock, daylight saving included, and not at the other offset', async () => {
    const now = Date.now();
    const offsetName = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', timeZoneName: 'shortOffset' })
      .formatToParts(now)
      .find((part) => part.type === 'timeZoneName')!.value;
    const newYorkOffset = Number(offsetName.replace('GMT', ''));
    expect([-4, -5]).toContain(newYorkOffset);
    // The offset a zone without daylight saving rules would wrongly use now (EST when it is EDT, and the reverse).
    const wrongOffset = newYorkOffset === -5 ? -4 : -5;
    const word = uniqueWord();
    const placement = (await createPlacement(ctx, publisher.id)).id;
    const body = { placement_id: placement, context: { query: word, response: '' } };
    const wrong = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 500 },
      targeting: { keywords: { include: [word] }, dayparts: { timezone: 'America/New_York', windows: [windowAround(now, wrongOffset)] } },
    });
    const right = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: [word] }, dayparts: { timezone: 'America/New_York', windows: [windowAround(now, newYorkOffset)] } },
    });
    await eventuallyServed(ctx, publisher.token, body, right.lineItemId);
    for (let i = 0; i < 3; i++) expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).not.toBe(wrong.lineItemId);
  });
});
