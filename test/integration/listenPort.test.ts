import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { serve, servableLineItem } from '../helpers/servingFixtures.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';

let ctx: TestContext;
beforeAll(async () => {
  // TRACKING_BASE_URL empty is unset: the default, http://localhost:$PORT.
  ctx = await startTestApp({ PORT: '0', TRACKING_BASE_URL: '', SERVE_BASE_URL: '' });
  await ctx.app.listen({ port: ctx.config.PORT, host: '127.0.0.1' });
});
afterAll(async () => {
  await ctx.close();
});

describe('PORT=0 (any free port)', () => {
  it('gives tracking links the port actually bound, not port 0', async () => {
    const port = (ctx.app.server.address() as { port: number }).port;
    expect(port).toBeGreaterThan(0);
    const created = await createAdvertiser(ctx);
    await servableLineItem(ctx, created);
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const ad = await eventually(async () => {
      const response = await serve(ctx, publisher.token, { placement_id: placement.id });
      return response.statusCode === 200 && response.json().ad ? response.json().ad : undefined;
    }, 'an ad');
    expect(ad.tracking.impression_url).toMatch(new RegExp(`^http://localhost:${port}/v1/t/i/`));
    expect(ad.tracking.click_url).toMatch(new RegExp(`^http://localhost:${port}/v1/t/c/`));
  });
});
