import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
  advertiserApi,
  afterAnswers,
  consoleProblems,
  createAdvertiser,
  createPublisher,
  screenshots,
  seriousAccessibilityViolations,
  signIn,
  withConsoleService,
  type AdvertiserTenant,
} from './consoleKit.js';

const service = withConsoleService();

interface LineItemRead {
  id: string;
  title: string;
  status: string;
  frequency_cap: { impressions: number; per: string } | null;
  targeting: { keywords?: { include?: string[] } };
  creatives: unknown[];
}

async function lineItemsOf(advertiser: AdvertiserTenant, campaignId: string): Promise<LineItemRead[]> {
  const response = await fetch(`${service.url}/v1/advertiser/campaigns/${campaignId}/line-items`, { headers: { 'x-api-key': advertiser.apiKey } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: LineItemRead[] }).data;
}

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? null);

describe.skipIf(skipBrowserTests)('console in Chromium: a campaign with two line items, each with its frequency cap', () => {
  it('composes with a frequency cap, adds a second line item with its own, pauses one and downloads the audit export', async () => {
    const advertiser = await createAdvertiser(service, 'Capped Co');
    const publisher = await createPublisher(service, 'capped-chat');
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);

    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Brand name').fill('Capped Co');
    await page.getByLabel('Line item title').fill('Hikers');
    await page.getByLabel('Daily budget').fill('50');
    await page.getByLabel('Bid value').fill('0,5');
    await page.getByLabel('Placements to run on').fill(publisher.placementId);
    // A count that is not digits is refused beside its field before anything is sent, together
    // with the other fields' problems (the campaign's name is missing).
    const cap = page.getByLabel('Frequency cap: impressions per user (optional)');
    await cap.fill('3 times');
    await page.getByLabel('Frequency cap: time window').selectOption('week');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await expect.poll(() => cap.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Campaign name').getAttribute('aria-invalid')).toBe('true');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await cap.fill('3');
    await page.getByLabel('Campaign name').fill('Rain shells');
    await page.getByLabel('Title', { exact: true }).fill('Stay dry');
    await page.getByLabel('Body').fill('Packable rain shells.');
    await page.getByLabel('Call to action').fill('Shop');
    await page.getByLabel('Destination URL').fill(`${service.url}/healthz`);
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Rain shells' }).waitFor();
    const campaignId = new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('id')!;
    const [hikers] = await lineItemsOf(advertiser, campaignId);
    expect(hikers!.frequency_cap).toEqual({ impressions: 3, per: 'week' });
    expect(await page.getByTestId('line-item-frequency-cap').first().textContent()).toBe(
      'Frequency cap: at most 3 impressions per user per week (UTC, from Monday); never shown to requests that do not send a user id.',
    );

    // A second line item from the campaign's page, with its own cap, targeting and creative.
    const add = page.getByRole('form', { name: 'Add a line item' });
    await add.getByLabel('Line item title').fill('Commuters');
    await add.getByLabel('Daily budget').fill('20');
    await add.getByLabel('Bid type').selectOption('CPC');
    await add.getByLabel('Bid value').fill('0.4');
    await add.getByLabel('Keywords to match').fill('commute, bike');
    await add.getByLabel('Frequency cap: impressions per user (optional)').fill('2');
    await add.getByLabel('Frequency cap: time window').selectOption('day');
    await add.getByLabel('Title', { exact: true }).fill('Ride dry');
    await add.getByLabel('Body').fill('A shell that packs into its pocket.');
    await add.getByLabel('Call to action').fill('See it');
    await add.getByLabel('Destination URL').fill(`${service.url}/healthz`);
    await add.getByRole('button', { name: 'Add line item' }).click();
    // The focus follows to the new line item's heading; the form is emptied for the next one.
    await expect.poll(() => focusedText(page)).toBe('Line item: Commuters draft');
    expect(await add.getByLabel('Line item title').inputValue()).toBe('');
    const commuters = (await lineItemsOf(advertiser, campaignId)).find((item) => item.title === 'Commuters')!;
    expect(commuters).toMatchObject({ status: 'draft', frequency_cap: { impressions: 2, per: 'day' }, targeting: { keywords: { include: ['commute', 'bike'] } } });
    expect(commuters.creatives).toHaveLength(1);

    // Activating the campaign activates both; then one is paused from its own button, and the focus
    // goes to the button that replaces it.
    await page.getByRole('button', { name: 'Activate campaign' }).click();
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('active');
    const commutersSection = page.getByRole('region', { name: /Line item: Commuters/ });
    await commutersSection.getByRole('button', { name: 'Pause line item' }).click();
    await expect.poll(async () => (await lineItemsOf(advertiser, campaignId)).find((item) => item.title === 'Commuters')!.status).toBe('paused');
    await expect.poll(() => focusedText(page)).toBe('Activate line item');
    expect(await page.getByRole('status').filter({ hasText: 'Commuters is now paused.' }).count()).toBe(1);
    expect((await lineItemsOf(advertiser, campaignId)).find((item) => item.title === 'Hikers')!.status).toBe('active');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-two-line-items');

    // The API activates a campaign with every line item, a paused one included: the console asks
    // first, and keeps Commuters paused when asked to, in the activation itself (never activated,
    // then paused again). Escape sends nothing.
    const statusOf = async (title: string) => (await lineItemsOf(advertiser, campaignId)).find((item) => item.title === title)!.status;
    const activations: (string | null)[] = [];
    const lineItemWrites: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/activate')) activations.push(request.postData());
      if (request.url().includes('/v1/advertiser/line-items/') && request.method() !== 'GET') lineItemWrites.push(`${request.method()} ${request.url()}`);
    });
    await page.getByRole('button', { name: 'Pause campaign' }).click();
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('paused');
    const activateCampaign = page.getByRole('button', { name: 'Activate campaign' });
    await activateCampaign.click();
    const question = page.getByRole('alertdialog', { name: 'Activate Rain shells?' });
    await expect.poll(() => focusedText(page)).toBe('Activate, keep Commuters paused');
    expect(await question.textContent()).toContain('Commuters is paused. Keep it paused when Rain shells goes live, or activate every line item of it, Commuters included?');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    await expect.poll(() => focusedText(page)).toBe('Activate campaign');
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedText(page)).toBe('Activate, keep Commuters paused');
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedText(page)).toBe('Pause campaign');
    await page.getByRole('status').filter({ hasText: 'Rain shells is now active. Commuters stays paused.' }).waitFor();
    expect(activations).toEqual([JSON.stringify({ keep_line_items_paused: true })]);
    expect(lineItemWrites).toEqual([]);
    expect([await statusOf('Hikers'), await statusOf('Commuters')]).toEqual(['active', 'paused']);

    // The audit export of the campaign: every stored event, the impression of a served ad among them
    // once it is written (asked again until it is).
    // A capped line item is served only to a request with a user id: the publisher's backend sends one.
    let impressionUrl: string | undefined;
    await expect.poll(async () => {
      const response = await fetch(`${service.url}/v1/serve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${publisher.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ placement_id: publisher.placementId, context: { query: 'rain shell for hiking', response: '' }, user: { id: 'reader-1' } }),
      });
      impressionUrl = response.ok ? ((await response.json()) as { ad: { tracking: { impression_url: string } } | null }).ad?.tracking.impression_url : undefined;
      return impressionUrl !== undefined;
    }, { timeout: 15_000, interval: 100 }).toBe(true);
    const reader = await service.browser.context.newPage();
    const pixel = reader.waitForResponse((response) => response.url() === impressionUrl);
    await reader.setContent(`<img alt="" src="${impressionUrl}">`);
    expect((await pixel).status()).toBe(200);
    await reader.close();
    await page.getByRole('link', { name: 'Reports' }).first().click();
    await page.getByText('Choose a campaign above to download its events.').waitFor();
    await page.getByLabel('Campaign', { exact: true }).selectOption({ label: 'Rain shells' });
    const download = page.getByRole('button', { name: 'Download every event of Rain shells (CSV)' });
    await expect.poll(async () => {
      const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
      expect(file.suggestedFilename()).toMatch(new RegExp(`^events_${campaignId}_\\d{4}-\\d{2}-\\d{2}_\\d{4}-\\d{2}-\\d{2}\\.csv$`));
      const lines = readFileSync((await file.path())!, 'utf8').split('\r\n');
      expect(lines[0]).toMatch(/^time,event_id,type,line_item_id,placement_id,/);
      return lines.filter((line) => line.includes(`,impression,${hikers!.id},${publisher.placementId},`)).length;
    }, { timeout: 30_000, interval: 500 }).toBe(1);

    // By line item, the campaign's every line item is listed: Commuters, paused without traffic,
    // with zeros after Hikers and its impression (the API's rows have line items with events only).
    // Asked again until the impression is counted, each ask's three report answers awaited before
    // the next (the campaign and its line items, asked beside them, are read by the next round).
    await page.getByLabel('Break down by').selectOption('line_item');
    const byLineItem = page.getByRole('table', { name: 'Metrics by line item' });
    const showReport = () => afterAnswers(page, '/v1/advertiser/reporting/', 3, () => page.getByRole('button', { name: 'Show report' }).click());
    const rowOf = async (title: string) => (await byLineItem.getByRole('row', { name: new RegExp(title) }).locator('th, td').allTextContents()).slice(0, 4);
    await expect.poll(async () => {
      await showReport();
      return (await byLineItem.count()) > 0 ? [await rowOf('Hikers'), await rowOf('Commuters')] : [];
    }, { timeout: 30_000, interval: 500 }).toEqual([['Hikers', 'Rain shells', '1', '0'], ['Commuters', 'Rain shells', '0', '0']]);
    expect(await byLineItem.locator('tbody th[scope="row"]').allTextContents()).toEqual(['Hikers', 'Commuters']);
    expect(await page.getByTestId('line-item-rows').textContent()).toBe(
      'Every line item of Rain shells is listed: those without valid events in this range show zeros (the CSV, as the API, lists only line items with events).',
    );
    // The date picker writes days in the browser's format (11/19/2026); under each the day is said as
    // the reports write it, with the UTC hour it starts or ends at.
    const description = (label: string) => page.getByLabel(label).evaluate((input) => (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent).join(' '));
    await page.getByLabel('From (UTC day)').fill('2026-11-19');
    await expect.poll(() => description('From (UTC day)')).toBe('From 2026-11-19 00:00 UTC.');
    await page.getByLabel('To (UTC day, included)').fill('2026-11-25');
    await expect.poll(() => description('To (UTC day, included)')).toBe('Until 2026-11-25 23:59 UTC, included.');
    expect(await page.getByText("Days are UTC days, whatever this computer's time zone").count()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // The campaign list asks the same, in a row under the campaign's; there every line item is activated.
    await page.getByRole('link', { name: 'Campaigns' }).first().click();
    const campaigns = page.getByRole('table', { name: 'Campaigns' });
    await campaigns.getByRole('button', { name: 'Pause Rain shells' }).click();
    await campaigns.getByRole('button', { name: 'Activate Rain shells' }).click();
    const listQuestion = campaigns.getByRole('alertdialog', { name: 'Activate Rain shells?' });
    await listQuestion.waitFor();
    // The row and its question read as one: no line under any cell of the row, its header cell included.
    const rowBorders = await campaigns.locator('tr:has(+ tr.question) > *').evaluateAll((cells) => cells.map((cell) => getComputedStyle(cell).borderBottomColor));
    expect(rowBorders).toHaveLength(6);
    expect(new Set(rowBorders)).toEqual(new Set(['rgba(0, 0, 0, 0)']));
    await screenshots(page, 'advertiser-list-activation-question');
    await listQuestion.getByRole('button', { name: 'Activate every line item' }).click();
    await page.getByRole('status').filter({ hasText: 'Rain shells is now active. Commuters, paused before, is active too.' }).waitFor();
    await expect.poll(() => focusedText(page)).toBe('Pause');
    expect([await statusOf('Hikers'), await statusOf('Commuters')]).toEqual(['active', 'active']);
    expect(consoleProblems(page)).toEqual([]);
  }, 120_000);

  it('gives New campaign and Add a line item the line item page\'s pacing, lifetime budget, countries and semantic matching, refused beside the field', async () => {
    const advertiser = await createAdvertiser(service, 'Nordlicht Reisen');
    const publisher = await createPublisher(service, 'nordlicht-chat');
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    const composes: string[] = [];
    page.on('request', (request) => { if (request.method() === 'POST' && request.url().endsWith('/campaigns/compose')) composes.push(request.postData() ?? ''); });

    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Campaign name').fill('Winter in Lappland');
    await page.getByLabel('Brand name').fill('Nordlicht Reisen');
    await page.getByLabel('Line item title').fill('Aurora seekers');
    await page.getByLabel('Daily budget').fill('120,50');
    await page.getByLabel('Budget currency').fill('EUR');
    await page.getByLabel('Lifetime budget (optional)').fill('2500,5');
    await page.getByLabel('Pacing').selectOption('asap');
    await page.getByLabel('Bid type').selectOption('tCPM');
    await page.getByLabel('Bid value').fill('4');
    await page.getByLabel('Placements to run on').fill(publisher.placementId);
    await page.getByLabel('Countries to run in').fill('de, at, fi');
    await page.getByLabel('Countries to avoid').fill('UK');
    await page.getByLabel('Semantic matching').check();
    // A threshold that is not a number is refused beside its field before anything is sent.
    const similarity = page.getByLabel('Minimum similarity (optional)');
    await similarity.fill('0,6x');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await expect.poll(() => similarity.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Enter a number from 0 to 1, for example 0.55.').count()).toBe(1);
    // The other fields are asked of validate meanwhile: UK is marked at the same time.
    const avoid = page.getByLabel('Countries to avoid');
    await expect.poll(() => avoid.getAttribute('aria-invalid')).toBe('true');
    expect(composes).toEqual([]);

    // The API's refusal of UK is shown beside *Countries to avoid*, naming the entry; above the form,
    // in place of the API's bare "request is invalid", a pointer to it.
    await similarity.fill('0,6');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    const alert = page.locator('#compose-errors [role="alert"]');
    await expect.poll(async () => ((await alert.count()) > 0 ? alert.textContent() : null)).toBe('See the field marked with its reason.');
    expect(composes).toHaveLength(1);
    expect(await avoid.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Country 1 (UK) is not an ISO 3166-1 alpha-2 country code: the United Kingdom is GB.').count()).toBe(1);
    expect(await page.getByText('request is invalid').count()).toBe(0);
    expect(await similarity.getAttribute('aria-invalid')).toBe(null);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-compose-countries-refused');

    await avoid.fill('ru');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Winter in Lappland' }).waitFor();
    const campaignId = new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('id')!;
    const read = async (title: string) => (await advertiserApi<{ data: (LineItemRead & { budget: unknown; targeting: unknown })[] }>(
      service, advertiser, 'GET', `/v1/advertiser/campaigns/${campaignId}/line-items`)).data.find((item) => item.title === title)!;
    const aurora = await read('Aurora seekers');
    expect(aurora.budget).toEqual({ daily: 120.5, currency: 'EUR', lifetime: 2500.5, pacing: 'asap' });
    expect(aurora.targeting).toEqual({
      placements: { include: [publisher.placementId] },
      countries: { include: ['DE', 'AT', 'FI'], exclude: ['RU'] },
      semantic: { enabled: true, min_similarity: 0.6 },
    });
    // The line item's page shows the same fields filled, in the same words.
    const targeting = page.getByRole('form', { name: 'Targeting of Aurora seekers' });
    expect(await targeting.getByLabel('Countries to run in').inputValue()).toBe('DE, AT, FI');
    expect(await targeting.getByLabel('Semantic matching').isChecked()).toBe(true);
    expect(await page.getByRole('form', { name: 'Budget of Aurora seekers' }).getByLabel('Pacing').inputValue()).toBe('asap');
    // A tCPM line item serves on certified placements only, which an advertiser cannot see: said under its heading.
    expect(await page.getByTestId('line-item-tcpm').textContent()).toContain('A tCPM bid is served only on placements certified for impression-priced demand');

    // Add a line item: the same fields, the same reading and refusals beside them.
    const add = page.getByRole('form', { name: 'Add a line item' });
    await add.getByLabel('Line item title').fill('Tokyo travellers');
    await add.getByLabel('Daily budget').fill('15000');
    await add.getByLabel('Budget currency').fill('JPY');
    await add.getByLabel('Lifetime budget (optional)').fill('1.000');
    await add.getByLabel('Pacing').selectOption('asap');
    await add.getByLabel('Countries to run in').fill('jp');
    await add.getByLabel('Semantic matching').check();
    await add.getByRole('button', { name: 'Add line item' }).click();
    const addLifetime = add.getByLabel('Lifetime budget (optional)');
    await expect.poll(() => addLifetime.getAttribute('aria-invalid')).toBe('true');
    await addLifetime.fill('200000');
    await add.getByRole('button', { name: 'Add line item' }).click();
    await expect.poll(() => focusedText(page)).toBe('Line item: Tokyo travellers draft');
    const tokyo = await read('Tokyo travellers');
    expect(tokyo.budget).toEqual({ daily: 15000, currency: 'JPY', lifetime: 200000, pacing: 'asap' });
    expect(tokyo.targeting).toEqual({ countries: { include: ['JP'] }, semantic: { enabled: true } });
    expect(await add.getByLabel('Semantic matching').isChecked()).toBe(false);
    expect(await add.getByLabel('Pacing').inputValue()).toBe('even');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-new-line-item-fields');
    expect(consoleProblems(page)).toEqual([]);
  }, 120_000);

  it('heads the operator\'s create forms in order, and keeps the keyboard focus on Register placement after the call (a disabled button dropped it to <body>)', async () => {
    const publisher = await createPublisher(service, 'focus-chat');
    const page = await signIn(service, 'an operator', service.adminToken);
    // The create forms right under a page's h1 head at level 2, not 3 (axe's heading-order): a
    // screen reader's list of headings had a level missing.
    await page.getByRole('link', { name: 'Organizations', exact: true }).click();
    await page.getByRole('heading', { name: 'Create an organization', level: 2 }).waitFor();
    await page.getByRole('link', { name: 'Publishers', exact: true }).click();
    await page.getByRole('heading', { name: 'Create a publisher', level: 2 }).waitFor();
    await page.getByRole('link', { name: `Publisher of ${publisher.placementId}` }).click();
    const form = page.getByRole('form', { name: 'Register a placement' });
    await form.getByLabel('Placement id').fill(`${publisher.placementId}-2`);
    await form.getByRole('button', { name: 'Register placement' }).click();
    await form.getByText(`Registered placement ${publisher.placementId}-2, uncertified.`).waitFor();
    await page.getByRole('link', { name: `${publisher.placementId}-2` }).waitFor();
    expect(await focusedText(page)).toBe('Register placement');
  }, 60_000);

  it("says why the publisher's Request review is greyed out until a placement is ticked", async () => {
    const publisher = await createPublisher(service, 'review-chat');
    const page = await signIn(service, 'a publisher', publisher.token);
    const why = page.getByText('Tick at least one placement above to request its review.');
    await why.waitFor();
    const button = page.getByRole('button', { name: 'Request review' });
    expect(await button.isDisabled()).toBe(true);
    expect(await button.getAttribute('aria-describedby')).toBe(await why.getAttribute('id'));
    await page.getByRole('checkbox', { name: publisher.placementId }).check();
    await expect.poll(() => why.count()).toBe(0);
    expect(await button.isDisabled()).toBe(false);
  }, 60_000);
});
