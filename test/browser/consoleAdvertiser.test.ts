import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIN_CLICK_DELAY_MS } from '../../src/tracking/linkTracker.js';
import { skipBrowserTests } from './chromium.js';
import {
  afterAnswers,
  consoleProblems,
  createAdvertiser,
  createPublisher,
  importEvents,
  onlyLineItem,
  screenshots,
  seriousAccessibilityViolations,
  serveAndView,
  signIn,
  withConsoleService,
} from './consoleKit.js';

const service = withConsoleService();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe.skipIf(skipBrowserTests)('console in Chromium: the advertiser', () => {
  it('signs in with an API key, composes and activates a campaign, sees its report after real pixel traffic and downloads the CSV', async () => {
    const advertiser = await createAdvertiser(service, 'Trailhead Outfitters');
    const publisher = await createPublisher(service, 'adv-chat-1');
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);

    // The credential is in this tab's session storage only: no cookie, nothing in localStorage.
    expect(await page.evaluate(() => JSON.parse(sessionStorage.getItem('adsvc.console.session')!).secret)).toBe(advertiser.apiKey);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await service.browser.context.cookies()).toEqual([]);

    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    await page.getByText('No campaigns yet.').waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // The API's 422 details appear next to the fields they are about.
    await page.getByRole('link', { name: 'New campaign' }).click();
    // The organization's only user is the owner, chosen for the advertiser and shown by email.
    const owner = page.getByLabel('Owner', { exact: true });
    await expect.poll(() => owner.inputValue()).toBe(advertiser.userId);
    expect(await owner.locator('option:checked').textContent()).toBe(`owner@${advertiser.organizationId}.test`);
    await page.getByLabel('Destination URL').fill('ftp://files.example/shell');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    const nameField = page.getByLabel('Campaign name');
    await expect.poll(() => nameField.getAttribute('aria-invalid')).toBe('true');
    const nameError = await nameField.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${nameError!.split(' ').pop()}"]`).textContent()).not.toBe('');
    expect(await page.getByLabel('Destination URL').getAttribute('aria-invalid')).toBe('true');
    // A field's hint and its problem are two sentences, the problem naming the field: not read (or
    // seen, one under the other) as "Up to 30 characters is required".
    expect(await page.getByLabel('Call to action').evaluate((input) => (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent).join(' '))).toBe(
      'Up to 30 characters. Call to action is required.',
    );
    // Above the form, a pointer to the fields rather than the API's bare "request is invalid".
    expect(await page.getByRole('alert').first().textContent()).toBe('See the fields marked with their reasons.');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-compose-errors');

    await nameField.fill('<b>Rain shells</b> spring');
    await page.getByLabel('Brand name').fill('Trailhead Outfitters');
    await page.getByLabel('Line item title').fill('Hikers');
    await page.getByLabel('Daily budget').fill('50');
    await page.getByLabel('Budget currency').fill('USD');
    await page.getByLabel('Bid type').selectOption('CPC');
    await page.getByLabel('Bid value').fill('0.5');
    await page.getByLabel('Keywords to match').fill('hiking, rain');
    await page.getByLabel('Placements to run on').fill(publisher.placementId);
    await page.getByLabel('Title', { exact: true }).fill('Stay dry on the trail');
    await page.getByLabel('Body').fill('Packable rain shells, 20% off this week.');
    await page.getByLabel('Call to action').fill('Shop shells');
    await page.getByLabel('Destination URL').fill(`${service.url}/healthz`);
    await page.getByRole('button', { name: 'Create campaign' }).click();

    // User text is text: the name's markup is shown as typed, not rendered.
    await page.getByRole('heading', { name: '<b>Rain shells</b> spring' }).waitFor();
    // Keyboard focus follows to the new campaign's heading, not to <body>.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('<b>Rain shells</b> spring');
    expect(await page.getByTestId('campaign-status').textContent()).toBe('paused');
    await page.getByRole('button', { name: 'Activate campaign' }).click();
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('active');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-campaign');

    // Editing the budget: the API's refusal beside the field, then the saved value.
    const budgetForm = page.getByRole('form', { name: 'Budget of Hikers' });
    await budgetForm.getByLabel('Daily budget').fill('-5');
    await budgetForm.getByRole('button', { name: 'Save budget' }).click();
    await expect.poll(() => budgetForm.getByLabel('Daily budget').getAttribute('aria-invalid')).toBe('true');
    await budgetForm.getByLabel('Daily budget').fill('60');
    await budgetForm.getByRole('button', { name: 'Save budget' }).click();
    await budgetForm.getByText('Budget saved.').waitFor();
    await budgetForm.getByLabel('Daily budget').fill('50');
    await budgetForm.getByRole('button', { name: 'Save budget' }).click();
    await budgetForm.getByText('Budget saved.').waitFor();

    // Real traffic: an impression pixel loaded by Chromium, then a click followed to the destination.
    const { click_url } = await serveAndView(service, publisher, 'best hiking jacket');
    await sleep(MIN_CLICK_DELAY_MS + 200);
    const visitor = await service.browser.context.newPage();
    await visitor.goto(click_url);
    expect(new URL(visitor.url()).pathname).toBe('/healthz');
    await visitor.close();

    await page.getByRole('link', { name: 'Reports' }).first().click();
    const byCampaign = page.getByRole('table', { name: 'Metrics by campaign' });
    const row = byCampaign.getByRole('row', { name: /Rain shells/ });
    // The events reach the rollups after a flush; the report is asked again until they are counted,
    // each ask's three answers (daily, breakdown, traffic quality) awaited before the next: an older
    // report drawn last would replace the one the reads below (and the next breakdown) are about.
    const showReport = () => afterAnswers(page, '/v1/advertiser/reporting/', 3, () => page.getByRole('button', { name: 'Show report' }).click());
    await page.getByRole('table', { name: 'Metrics by day' }).waitFor();
    await expect
      .poll(async () => {
        await showReport();
        return (await row.count()) > 0 ? (await row.getByRole('cell').allTextContents()).slice(1, 5) : [];
      }, { timeout: 20_000, interval: 500 })
      .toEqual(['1', '1', '0', '0.5']);
    // Every metric of the spec's row has a column.
    expect(await byCampaign.getByRole('columnheader').allTextContents()).toEqual([
      'Campaign', 'Status', 'Impressions', 'Clicks', 'Conversions', 'Spend (USD)', 'Revenue (USD)', 'CTR %', 'CPC (USD)', 'CPA (USD)', 'CVR %', 'eCPM (USD)', 'ROAS', 'Reach (users)',
    ]);
    expect(await page.locator('.chart canvas').count()).toBeGreaterThan(0);
    const dailyRows = page.getByRole('table', { name: 'Metrics by day' }).locator('tbody tr');
    expect(await dailyRows.count()).toBe(7);
    // 1 impression, 1 click and 0.50 USD on one day draw one line on their axes: the chart says so.
    expect(await page.getByTestId('chart-overlap').textContent()).toBe(
      'Impressions, clicks and spend are drawn at the same height every day here, one over the other (as stripes of their colours); the daily table below has each figure.',
    );
    // A field alone on its line is as wide as a form's field, not the page's (1,100 px at 1280).
    expect((await page.getByLabel('Break down by').boundingBox())!.width).toBeLessThanOrEqual(320);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-report');
    // At 390 px the daily table scrolls in its box: the box takes the focus, and the keyboard scrolls it.
    await page.setViewportSize({ width: 390, height: 844 });
    const dailyBox = page.getByRole('region', { name: 'Metrics by day, scrolls sideways' });
    await dailyBox.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => dailyBox.evaluate((box) => box.scrollLeft)).toBeGreaterThan(0);
    // At 1280 px it fits: no region, no tab stop that scrolls nothing.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(() => page.getByRole('region', { name: 'Metrics by day, scrolls sideways' }).count()).toBe(0);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download campaign CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8').trim().split(/\r?\n/);
    expect(download.suggestedFilename()).toMatch(/^campaign-report_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv$/);
    expect(csv[0]).toContain('impressions');
    expect(csv.slice(1).some((line) => line.includes('Rain shells') && line.includes(',1,1,'))).toBe(true);

    // Other breakdowns: the same events by line item (with its campaign) and by placement.
    await page.getByLabel('Break down by').selectOption('line_item');
    const byLineItem = page.getByRole('table', { name: 'Metrics by line item' }).getByRole('row', { name: /Hikers/ });
    await byLineItem.waitFor();
    expect((await byLineItem.getByRole('cell').allTextContents()).slice(0, 3)).toEqual(['<b>Rain shells</b> spring', '1', '1']);
    // Reach is shown where the API counts it (campaign and line item rows).
    expect(await page.getByRole('table', { name: 'Metrics by line item' }).getByRole('columnheader').last().textContent()).toBe('Reach (users)');
    expect(await byLineItem.getByRole('cell').last().textContent()).toMatch(/^\d+$/);
    await page.getByLabel('Break down by').selectOption('placement');
    const byPlacement = page.getByRole('table', { name: 'Metrics by placement' }).getByRole('row', { name: new RegExp(`Chat sidebar ${publisher.placementId}`) });
    await byPlacement.waitFor();
    expect((await byPlacement.getByRole('cell').allTextContents()).slice(0, 2)).toEqual(['1', '1']);
    expect(new URL(page.url()).hash).toContain('by=placement');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // The page follows its address: Back, Forward and an address changed in place (a bookmark)
    // ask for the report they name and show its choice, without a reload.
    const breakdownAsked = (breakdown: string) =>
      page.waitForRequest((request) => request.url().includes('/v1/advertiser/reporting/campaigns') && new URL(request.url()).searchParams.get('breakdown') === breakdown);
    await Promise.all([breakdownAsked('line_item'), page.goBack()]);
    await page.getByRole('table', { name: 'Metrics by line item' }).getByRole('row', { name: /Hikers/ }).waitFor();
    expect(await page.getByLabel('Break down by').inputValue()).toBe('line_item');
    await Promise.all([breakdownAsked('placement'), page.goForward()]);
    await byPlacement.waitFor();
    expect(await page.getByLabel('Break down by').inputValue()).toBe('placement');
    await Promise.all([breakdownAsked('country'), page.evaluate(() => { location.hash = '#/report?by=country'; })]);
    await page.getByRole('table', { name: 'Metrics by country' }).waitFor();
    expect(await page.getByLabel('Break down by').inputValue()).toBe('country');
    await Promise.all([breakdownAsked('campaign'), page.evaluate(() => { location.hash = '#/report'; })]);
    await byCampaign.waitFor();
    expect(await page.getByLabel('Break down by').inputValue()).toBe('campaign');

    // An imported event has no creative: its row (the API's nil UUID) is named as such.
    await importEvents(service, [{ type: 'impression', time: new Date().toISOString(), line_item_id: await onlyLineItem(service, advertiser), placement_id: publisher.placementId, ip: '73.162.10.20' }]);
    await page.getByLabel('Break down by').selectOption('creative');
    await page.getByRole('table', { name: 'Metrics by creative' }).waitFor();
    const importedRow = page.getByRole('table', { name: 'Metrics by creative' }).getByRole('row', { name: /Imported \(no creative\)/ });
    await expect
      .poll(async () => {
        await showReport();
        return importedRow.count();
      }, { timeout: 20_000, interval: 500 })
      .toBe(1);
    expect(await page.getByRole('table', { name: 'Metrics by creative' }).getByText('00000000-0000-0000-0000-000000000000').count()).toBe(0);
    await screenshots(page, 'advertiser-report-creative');

    // A range over 92 days is explained before it is refused.
    await page.getByLabel('From (UTC day)').fill('2020-01-01');
    await page.getByText(/a report covers at most 92/).waitFor();
    expect(await page.getByRole('button', { name: 'Show report' }).isDisabled()).toBe(true);

    // The list: status and today's spend against the daily budget.
    await page.getByRole('link', { name: 'Campaigns' }).click();
    // Scoped to the list's table: the report's "Metrics by campaign" has a Rain shells row too, and
    // a wait that met it just before the page changed read the cells of a row no longer there ([]).
    const listed = page.getByRole('table', { name: 'Campaigns' }).getByRole('row', { name: /Rain shells/ });
    await listed.waitFor();
    expect(await listed.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['active', '$0.50', '50 USD a day']));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-campaigns');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
