import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import { consoleProblems, createActiveCampaign, createAdvertiser, createPublisher, signIn, withConsoleService } from './consoleKit.js';

const service = withConsoleService();

/** The report's ask for the line-item breakdown (one of the three asks of a report). */
const lineItemBreakdown = (url: URL) => url.pathname === '/v1/advertiser/reporting/campaigns' && url.searchParams.get('breakdown') === 'line_item';

describe.skipIf(skipBrowserTests)('console in Chromium: an ask answered after a newer one', () => {
  it('the report keeps the breakdown chosen last when the one chosen before it is answered after it', async () => {
    const advertiser = await createAdvertiser(service, 'Late Answer Co');
    await createActiveCampaign(service, advertiser, (await createPublisher(service, 'late-chat')).placementId);
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'Reports' }).first().click();
    await page.getByRole('table', { name: 'Metrics by day' }).waitFor();

    // The line-item breakdown is answered late, as on a slow network or under a slow query: after
    // the placement breakdown chosen next is answered and shown.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    await page.route(lineItemBreakdown, async (route) => {
      await held;
      await route.continue();
    });
    const breakdown = page.getByLabel('Break down by');
    const asked = page.waitForRequest((request) => lineItemBreakdown(new URL(request.url())));
    await breakdown.selectOption('line_item');
    await asked;
    await breakdown.selectOption('placement');
    await page.getByText('No valid events by placement in this range.').waitFor();

    // Whatever the page draws from now on is watched: the late answer must not be drawn at all.
    await page.evaluate(() => {
      const watched = window as unknown as { lineItemsDrawn: boolean };
      watched.lineItemsDrawn = false;
      new MutationObserver(() => {
        if (document.querySelector('main')?.textContent?.includes('by line item')) watched.lineItemsDrawn = true;
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    const lateAnswered = page.waitForEvent('requestfinished', (request: Request) => lineItemBreakdown(new URL(request.url())));
    answer();
    await lateAnswered;
    // A round trip of the page's own after the late answer is in: its body was read and handed on
    // long before this one is answered.
    expect(await page.evaluate(() => fetch('/healthz').then((response) => response.status))).toBe(200);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    await page.unroute(lineItemBreakdown);

    expect(await page.evaluate(() => (window as unknown as { lineItemsDrawn: boolean }).lineItemsDrawn)).toBe(false);
    expect(await page.getByText('No valid events by placement in this range.').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'By placement' }).count()).toBe(1);
    expect(await breakdown.inputValue()).toBe('placement');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
