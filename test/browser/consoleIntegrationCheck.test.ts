import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
  afterAnswers,
  consoleProblems,
  createActiveCampaign,
  createAdvertiser,
  createPublisher,
  screenshots,
  servedTracking,
  signIn,
  withConsoleService,
} from './consoleKit.js';

const service = withConsoleService();

describe.skipIf(skipBrowserTests)("console in Chromium: the publisher's integration check explains itself", () => {
  it('shows how each pixel was requested and a legend for filtered and not_image_request', async () => {
    const publisher = await createPublisher(service, 'check-legend');
    await createActiveCampaign(service, await createAdvertiser(service, 'Legend Outfitters'), publisher.placementId);
    // A pixel fired by a script's fetch() from a page: not an image request.
    const fetched = (await servedTracking(service, publisher, 'rain on the trail')).impression_url;
    const tab = await service.browser.context.newPage();
    await tab.goto(`${service.url}/healthz`);
    await tab.evaluate((url) => fetch(url, { mode: 'no-cors' }).then(() => undefined), fetched);
    await tab.close();
    // A pixel from a server's HTTP library (a bot): a verdict the publisher sees as filtered, with no Fetch Metadata.
    const fromServer = (await servedTracking(service, publisher, 'rain on the trail')).impression_url;
    expect((await fetch(fromServer, { headers: { 'user-agent': 'python-requests/2.31.0' } })).status).toBe(200);

    const page = await signIn(service, 'a publisher', publisher.token);
    await page.goto(`${service.url}/console#/check?id=${encodeURIComponent(publisher.placementId)}`);
    const rows = page.getByRole('table', { name: 'Recent impressions' }).locator('tbody tr');
    // Each Refresh's answer is awaited before the next: two in flight may answer in either order, and
    // an older one drawn last would take a row away from the reads below.
    const checkPath = `/v1/publisher/placements/${encodeURIComponent(publisher.placementId)}/recent-impressions`;
    await expect
      .poll(async () => {
        await afterAnswers(page, checkPath, 1, () => page.getByRole('button', { name: 'Refresh' }).click());
        return rows.count();
      }, { timeout: 20_000, interval: 500 })
      .toBe(2);
    const cells = async (index: number) => (await rows.nth(index).getByRole('cell').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
    const all = [...(await cells(0)), ...(await cells(1))];
    expect(all).toContain('a script’s fetch or XHR');
    expect(all).toContain('no Fetch Metadata');
    expect(all).toContain('ad pixel not loaded as an image (not_image_request)');
    expect(all).toContain('filtered as invalid traffic (reason not shared) (filtered)');
    const legend = (await page.getByTestId('integration-legend').textContent())!.replace(/\s+/g, ' ');
    expect(legend).toContain('not billed: judged as not a person’s view.');
    expect(legend).toContain('load it as an image, new Image() or <img>.');
    expect(legend).toContain('Requested as');
    await screenshots(page, 'publisher-integration-legend');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
