import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
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

describe.skipIf(skipBrowserTests)('console in Chromium: traffic quality and stopped delivery', () => {
  it('the traffic-quality table says each reason in plain words, its code as a hint, and counts with separators', async () => {
    const advertiser = await createAdvertiser(service, 'Quality Outfitters');
    const publisher = await createPublisher(service, 'quality-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);
    const lineItemId = await onlyLineItem(service, advertiser);
    const time = new Date(Date.now() - 60_000).toISOString();
    const bot = { type: 'impression', time, line_item_id: lineItemId, placement_id: publisher.placementId, ip: '73.1.2.3', user_agent: 'python-requests/2.31.0' };
    expect(await importEvents(service, Array.from({ length: 1234 }, () => bot))).toMatchObject({ invalid: 1234, rejected: 0 });

    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'Reports' }).first().click();
    const row = page.getByRole('table', { name: 'Invalid traffic by reason' }).getByRole('row', { name: /Rain shells/ });
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Show report' }).click();
        return (await row.count()) > 0 ? (await row.getByRole('cell').allTextContents()) : [];
      }, { timeout: 20_000, interval: 500 })
      .toEqual(['a known bot or automated browser (bot)', '1,234', '0', '0']);
    await screenshots(page, 'advertiser-traffic-quality');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('a line item stopped by its lifetime budget says so where the advertiser looks at it, and the campaign page says which', async () => {
    const advertiser = await createAdvertiser(service, 'Budget Outfitters');
    const publisher = await createPublisher(service, 'budget-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);
    const lineItemId = await onlyLineItem(service, advertiser);
    const budget = await fetch(`${service.url}/v1/advertiser/line-items/${lineItemId}/budget`, {
      method: 'PUT',
      headers: { 'x-api-key': advertiser.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ daily: 50, lifetime: 1, currency: 'USD', pacing: 'asap' }),
    });
    expect(budget.status).toBe(200);
    // Two valid clicks at the 0.5 CPC bid spend the whole lifetime budget.
    const time = new Date(Date.now() - 60_000).toISOString();
    const click = { type: 'click', time, line_item_id: lineItemId, placement_id: publisher.placementId, ip: '73.1.2.4', user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36' };
    expect(await importEvents(service, [click, click])).toMatchObject({ accepted: 2, rejected: 0 });
    await expect
      .poll(async () => {
        const response = await fetch(`${service.url}/v1/advertiser/line-items/${lineItemId}`, { headers: { 'x-api-key': advertiser.apiKey } });
        return ((await response.json()) as { data: { delivery_stopped_by: string | null } }).data.delivery_stopped_by;
      }, { timeout: 10_000, interval: 200 })
      .toBe('lifetime_budget');

    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'Rain shells' }).first().click();
    await page.getByTestId('line-item-stopped').waitFor();
    expect(await page.getByTestId('line-item-stopped').textContent()).toBe('Not delivering: its lifetime budget is spent. Raise the lifetime budget to deliver again.');
    expect((await page.getByTestId('campaign-stopped').textContent())!.replace(/\s+/g, ' ').trim()).toBe('A line item has stopped delivering for budget: Hikers (lifetime budget spent).');
    await screenshots(page, 'advertiser-campaign-stopped');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
