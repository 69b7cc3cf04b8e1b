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
  signIn,
  withConsoleService,
} from './consoleKit.js';

const service = withConsoleService();

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

describe.skipIf(skipBrowserTests)('console in Chromium: the operator', () => {
  it("has a Totals page: the platform's daily totals over a date range, their sum, and the CSV", async () => {
    const advertiser = await createAdvertiser(service, 'Totals Outfitters');
    const publisher = await createPublisher(service, 'totals-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);
    const lineItemId = await onlyLineItem(service, advertiser);
    // Two valid clicks at the 0.5 CPC bid, through the admin import: 1 USD of spend today.
    const click = { type: 'click', time: new Date(Date.now() - 60_000).toISOString(), line_item_id: lineItemId, placement_id: publisher.placementId, ip: '73.1.2.9', user_agent: CHROME };
    await importEvents(service, [click, click]);

    const page = await signIn(service, 'an operator', service.adminToken);
    await page.getByRole('link', { name: 'Totals' }).first().click();
    const table = page.getByRole('table', { name: 'Platform totals by day' });
    await table.waitFor();
    // The clicks' UTC day: a run a minute after midnight has them in yesterday's row.
    const day = click.time.slice(0, 10);
    const dayRow = table.getByRole('row', { name: new RegExp(`^${day}`) });
    // Show totals empties the table and asks again: each ask's answer is awaited, so that the reads
    // below never meet the table gone under a slower ask (they did not wait for it, and a count of
    // its rows was 0).
    await expect
      .poll(async () => {
        await afterAnswers(page, '/v1/admin/reporting', 1, () => page.getByRole('button', { name: 'Show totals' }).click());
        return dayRow.locator('[data-column="Clicks"]').textContent();
      }, { timeout: 20_000, interval: 500 })
      .toBe('2');
    expect(await dayRow.locator('[data-column="Spend (USD)"]').textContent()).toBe('$1.00');
    // Seven days, every day present, and their sum.
    expect(await table.locator('tbody tr').count()).toBe(7);
    expect(await table.locator('tfoot [data-column="Spend (USD)"]').textContent()).toBe('$1.00');
    await screenshots(page, 'operator-totals');

    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 30_000 }),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('date,requests,filled,impressions,invalid_impressions,clicks,invalid_clicks,spend_usd,publisher_earnings_usd,platform_margin_usd');
    expect(lines).toHaveLength(8);
    expect(lines.find((line) => line.startsWith(day))).toMatch(/^[\d-]+,\d+,\d+,\d+,\d+,2,0,1,/);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
