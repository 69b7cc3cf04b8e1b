import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
  afterAnswers,
  consoleProblems,
  createActiveCampaign,
  createAdvertiser,
  createPublisher,
  importEvents,
  onlyLineItem,
  screenshots,
  seriousAccessibilityViolations,
  signIn,
  withConsoleService,
} from './consoleKit.js';

const service = withConsoleService();

/** What a cell shows and what it says to a screen reader (the dash is hidden from it, its meaning read instead). */
const cellsOf = (row: import('playwright-core').Locator) => row.locator('td').evaluateAll((cells) => cells.map((cell) => {
  const hidden = cell.querySelector('[aria-hidden="true"]')?.textContent;
  const read = cell.querySelector('.visually-hidden')?.textContent;
  return hidden === undefined ? cell.textContent : `${hidden} (${read})`;
}));

describe.skipIf(skipBrowserTests)('console in Chromium: report figures a row cannot have', () => {
  it('shows a rate without clicks, conversions or impressions as "—" with its meaning (the CSV keeps the API\'s 0), and writes the chart\'s axes as the tables', async () => {
    // A browser in German: uPlot wrote its axes in the browser's language ("0,5") over tables of
    // points (con43). Every number the chart draws is recorded.
    await service.browser.context.addInitScript(() => {
      Object.defineProperty(navigator, 'language', { get: () => 'de-DE' });
      const drawn: string[] = [];
      (window as unknown as { drawnTexts: string[] }).drawnTexts = drawn;
      const fillText = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, maxWidth?: number) {
        drawn.push(String(text));
        return maxWidth === undefined ? fillText.call(this, text, x, y) : fillText.call(this, text, x, y, maxWidth);
      };
    });
    const advertiser = await createAdvertiser(service, 'Rates Outfitters');
    const publisher = await createPublisher(service, 'rates-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);
    const lineItemId = await onlyLineItem(service, advertiser);
    const time = new Date(Date.now() - 60_000).toISOString();
    const reader = { time, line_item_id: lineItemId, placement_id: publisher.placementId, ip: '73.1.2.5', user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36' };
    // Three impressions and two clicks at the 0.5 CPC bid: 1 USD, no conversion.
    const events = [...Array.from({ length: 3 }, () => ({ type: 'impression', ...reader })), ...Array.from({ length: 2 }, () => ({ type: 'click', ...reader }))];
    expect(await importEvents(service, events)).toMatchObject({ accepted: 5, rejected: 0 });

    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'Reports' }).first().click();
    const daily = page.getByRole('table', { name: 'Metrics by day' });
    const today = time.slice(0, 10);
    const todayRow = daily.getByRole('row', { name: new RegExp(`^${today}`) });
    await expect.poll(async () => {
      await afterAnswers(page, '/v1/advertiser/reporting/', 3, () => page.getByRole('button', { name: 'Show report' }).click());
      return (await todayRow.count()) > 0 ? (await cellsOf(todayRow)).slice(0, 4) : [];
    }, { timeout: 30_000, interval: 500 }).toEqual(['3', '2', '0', '1']);
    // Impressions, clicks, conversions, spend, revenue, CTR %, CPC, CPA, CVR %, eCPM, ROAS.
    expect(await cellsOf(todayRow)).toEqual(['3', '2', '0', '1', '0', '66.666667', '0.5', '— (no conversions)', '0', '333.333333', '0']);
    const quietDay = daily.locator('tbody tr').first();
    expect(await quietDay.locator('th').textContent()).not.toBe(today);
    expect(await cellsOf(quietDay)).toEqual([
      '0', '0', '0', '0', '0', '— (no impressions)', '— (no clicks)', '— (no conversions)', '— (no clicks)', '— (no impressions)', '— (no spend)',
    ]);
    expect(await quietDay.locator('td').nth(6).getAttribute('title')).toBe('no clicks');
    expect(await page.getByTestId('no-rate-note').first().textContent()).toBe(
      '— : nothing to divide by (CTR and eCPM without impressions, CPC and CVR without clicks, CPA without conversions, ROAS without spend). The CSV and the API write 0 there.',
    );
    // The campaign's row: clicks, no conversion.
    const campaignRow = page.getByRole('table', { name: 'Metrics by campaign' }).getByRole('row', { name: /Rain shells/ });
    expect((await cellsOf(campaignRow)).slice(7, 9)).toEqual(['0.5', '— (no conversions)']);

    // The CSV is the API's: 0 where the page says "—".
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download daily CSV' }).click()]);
    const [header, firstDay] = readFileSync((await download.path())!, 'utf8').trim().split(/\r?\n/);
    const columns = header!.split(',');
    const values = firstDay!.split(',');
    expect(['cpc_usd', 'cpa_usd', 'ecpm_usd'].map((name) => values[columns.indexOf(name)])).toEqual(['0', '0', '0']);

    // The chart's legend says "no value" with the tables' one dash, the day's included (con45: uPlot's
    // own "--" stood beside "—" until a hover); hovering a day shows it as the daily table does.
    const legend = () => page.locator('.chart .u-legend .u-value').allTextContents();
    expect(await legend()).toEqual(['—', '—', '—', '—']);
    const plot = page.locator('.chart .u-over');
    const box = (await plot.boundingBox())!;
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    await expect.poll(legend).toEqual([today, '3', '2', '$1.00']);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height + 200);
    await expect.poll(legend).toEqual(['—', '—', '—', '—']);

    // The chart's axes: points, as the tables write them; never the browser's decimal comma.
    const numbers = await page.evaluate(() => (window as unknown as { drawnTexts: string[] }).drawnTexts.filter((text) => /^[\d.,\s]+$/.test(text)));
    expect(numbers.some((text) => /^\d+\.\d+$/.test(text))).toBe(true);
    expect(numbers.filter((text) => /\d,\d{1,2}$/.test(text))).toEqual([]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-report-rates');
    expect(consoleProblems(page)).toEqual([]);
  }, 90_000);
});
