import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import { consoleProblems, createAdvertiser, screenshots, seriousAccessibilityViolations, signIn, withConsoleService } from './consoleKit.js';

const service = withConsoleService();

const CAMPAIGNS = 205;
const name = (n: number) => `Campaign ${String(n).padStart(3, '0')}`;

describe.skipIf(skipBrowserTests)('console in Chromium: an advertiser with more campaigns than a page', () => {
  it('pages the campaign list (one line-items request per row of the page shown), lists every campaign in the report picker and pages the report table', async () => {
    const advertiser = await createAdvertiser(service, 'Many Campaigns Co');
    // One after the other, so that creation order (the list's order) is the numbering.
    for (let n = 0; n < CAMPAIGNS; n += 1) {
      const response = await fetch(`${service.url}/v1/advertiser/campaigns`, {
        method: 'POST',
        headers: { 'x-api-key': advertiser.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: name(n), brand_name: 'Many', user_id: advertiser.userId }),
      });
      expect(response.status).toBe(201);
    }
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? null);
    const table = page.getByRole('table', { name: 'Campaigns' });
    const rowNames = () => table.locator('tbody th[scope="row"] a').allTextContents();
    // Counted from a fresh load of the first page (the table shows once its requests are answered).
    await table.getByRole('link', { name: name(0), exact: true }).waitFor();
    let lineItemRequests = 0;
    page.on('request', (request) => {
      if (/\/campaigns\/[^/]+\/line-items$/.test(new URL(request.url()).pathname)) lineItemRequests += 1;
    });
    await page.reload();

    const pages: string[][] = [];
    const requestsPerPage: number[] = [];
    for (let number = 1; ; number += 1) {
      await page.getByText(`Page ${number}`, { exact: true }).waitFor();
      await table.getByRole('link', { name: name((number - 1) * 50), exact: true }).waitFor();
      pages.push(await rowNames());
      requestsPerPage.push(lineItemRequests);
      lineItemRequests = 0;
      const next = page.getByRole('button', { name: 'Next page' });
      if (await next.isDisabled()) break;
      await next.click();
    }
    expect(pages.map((rows) => rows.length)).toEqual([50, 50, 50, 50, 5]);
    // On the last page Next page has nowhere to go, but keeps the focus it was pressed with (a
    // disabled button dropped it to <body>, and the next Tab started at the top of the page).
    await expect.poll(focusedText).toBe('Next page');
    expect(pages.flat()).toEqual(Array.from({ length: CAMPAIGNS }, (_, n) => name(n)));
    // The rows of a page cost one request each, never the whole organization's.
    expect(requestsPerPage).toEqual(pages.map((rows) => rows.length));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-campaigns-last-page');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await table.getByRole('link', { name: name(150), exact: true }).waitFor();
    expect(await rowNames()).toEqual(Array.from({ length: 50 }, (_, n) => name(150 + n)));

    // The report: the picker lists every campaign; the per-campaign table pages through all of them.
    await page.getByRole('link', { name: 'Reports' }).first().click();
    const picker = page.getByLabel('Campaign', { exact: true });
    await expect.poll(() => picker.locator('option').count(), { timeout: 10_000 }).toBe(CAMPAIGNS + 1);
    const byCampaign = page.getByRole('table', { name: 'Metrics by campaign' });
    const reported: string[] = [];
    for (const [first, last] of [[1, 100], [101, 200], [201, 205]] as const) {
      await page.getByText(`Rows ${first}–${last}`, { exact: true }).waitFor();
      const rows = await byCampaign.locator('tbody th[scope="row"]').allTextContents();
      expect(rows.length).toBe(last - first + 1);
      reported.push(...rows);
      if (last < CAMPAIGNS) await page.getByRole('navigation', { name: 'Pages of metrics by campaign' }).getByRole('button', { name: 'Next page' }).click();
    }
    expect(new Set(reported)).toEqual(new Set(Array.from({ length: CAMPAIGNS }, (_, n) => name(n))));
    expect(await page.getByRole('navigation', { name: 'Pages of metrics by campaign' }).getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await expect.poll(focusedText).toBe('Next page');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-report-last-rows');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
