import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
  afterAnswers,
  consoleProblems,
  createActiveCampaign,
  createAdvertiser,
  createPublisher,
  screenshots,
  seriousAccessibilityViolations,
  serveAndView,
  servedTracking,
  signIn,
  withConsoleService,
} from './consoleKit.js';

const service = withConsoleService();

describe.skipIf(skipBrowserTests)('console in Chromium: the publisher', () => {
  it('signs in with a publisher token, sees certification and the integration check after a real impression, and requests a review', async () => {
    const publisher = await createPublisher(service, 'pub-chat-1');
    await createPublisher(service, 'someone-elses-placement');
    await createActiveCampaign(service, await createAdvertiser(service, 'Trailhead Outfitters'), publisher.placementId);
    await serveAndView(service, publisher, 'rain on the trail');

    const page = await signIn(service, 'a publisher', publisher.token, { keyboard: true });
    await page.getByRole('heading', { name: 'Placements', level: 1 }).waitFor();
    // The header names the publisher signed in (GET /v1/publisher/me), as it names an advertiser's organization.
    expect(await page.getByTestId('publisher-name').textContent()).toBe(`Publisher of ${publisher.placementId}`);
    const row = page.locator(`tr[data-placement="${publisher.placementId}"]`);
    await row.waitFor();
    // Only its own placements, with what each may earn from.
    expect(await page.locator('tr[data-placement]').count()).toBe(1);
    expect(await row.getByTestId('certification').textContent()).toBe('uncertified');
    expect(await row.getByRole('cell').allTextContents()).toContain('CPC, CPA');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await row.getByRole('link', { name: /Integration check/ }).click();
    const summary = page.getByTestId('integration-summary');
    // The impression is in ClickHouse after a flush: refresh until the check lists it, each answer
    // awaited before the next ask (afterAnswers).
    const checkPath = `/v1/publisher/placements/${encodeURIComponent(publisher.placementId)}/recent-impressions`;
    await expect
      .poll(async () => {
        await afterAnswers(page, checkPath, 1, () => page.getByRole('button', { name: 'Refresh' }).click());
        return summary.textContent();
      }, { timeout: 20_000, interval: 500 })
      .toMatch(/^The one impression of the last 24 hours: 1 from browsers \(100%\), 0 from servers/);
    const impression = page.getByRole('table', { name: 'Recent impressions' }).locator('tbody tr');
    expect(await impression.count()).toBe(1);
    expect(await impression.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['browser', 'Chrome', 'pixel']));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'publisher-integration-check');
    // A row's time stays on one line, as days do: at 390 px, with 50 rows of long network names, the
    // table squeezed it to "2026- / 11-25 / 02:26 / UTC" (one row here is not wide enough to show it).
    expect(await impression.getByRole('cell').first().evaluate((cell) => getComputedStyle(cell).whiteSpace)).toBe('nowrap');

    // Earnings: the serve requests and the browser's impression, per placement, over the default week.
    await page.getByRole('link', { name: 'Earnings' }).click();
    await page.getByRole('heading', { name: 'Earnings', level: 1 }).waitFor();
    const earnings = page.getByRole('table', { name: 'Earnings by placement' });
    const earningsRow = earnings.locator(`tr[data-placement="${publisher.placementId}"]`);
    const cell = (column: string) => earningsRow.locator(`td[data-column="${column}"]`).textContent();
    // Serve counts reach the report after a flush: ask again from the keyboard until they show, once
    // the page's first answer is in.
    await earnings.waitFor();
    await expect
      .poll(async () => {
        await afterAnswers(page, '/v1/publisher/reporting', 1, () => page.getByRole('button', { name: 'Show earnings' }).press('Enter'));
        return cell('Impressions');
      }, { timeout: 20_000, interval: 500 })
      .toBe('1');
    expect(await earnings.locator('tbody tr').count()).toBe(1);
    expect(Number((await cell('Requests'))!.replace(/,/g, ''))).toBeGreaterThanOrEqual(1);
    expect(await cell('Clicks')).toBe('0');
    expect(await cell('Invalid impressions')).toBe('0');
    // A CPC ad seen and not clicked earned nothing: over one impression that is a rate of 0, shown as 0.
    expect(await cell('eCPM (USD)')).toBe('$0.00');
    expect(await cell('CTR')).toBe('0 %');
    expect(await earningsRow.getByRole('rowheader').textContent()).toContain(`Chat sidebar ${publisher.placementId}`);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    // At a phone's width the table scrolls inside its box, which must be reachable from the keyboard.
    await page.setViewportSize({ width: 390, height: 844 });
    // A box becomes a region in the tab order on its ResizeObserver, a frame or two after the resize
    // (tableWrap.ts): read the page once every box that scrolls has been told so.
    await expect
      .poll(() => page.locator('.table-wrap').evaluateAll((boxes) => boxes.filter((box) => box.scrollWidth > box.clientWidth && box.getAttribute('tabindex') !== '0').length))
      .toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    // The page's main figure is on screen beside the placement without scrolling, and a percent
    // stays on one line with its unit.
    const earningsHeader = await earnings.getByRole('columnheader', { name: 'Earnings (USD)' }).boundingBox();
    expect(earningsHeader!.x + earningsHeader!.width).toBeLessThanOrEqual(390);
    const lines = (column: string) =>
      earningsRow.locator(`td[data-column="${column}"]`).evaluate((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      });
    expect(await lines('Fill rate')).toBe(1);
    expect(await lines('CTR')).toBe(1);
    await screenshots(page, 'publisher-earnings');

    await page.getByRole('link', { name: 'Placements' }).click();
    // Picked by the name the publisher knows it by, its id after it.
    await page.getByRole('checkbox', { name: `Chat sidebar ${publisher.placementId} (${publisher.placementId})`, exact: true }).check();
    await page.getByLabel('Note for the reviewer (optional)').fill('See https://chat.example/ — the ad shows under the answer.');
    await page.getByRole('button', { name: 'Request review' }).click();
    await page.getByText(`Review requested for Chat sidebar ${publisher.placementId}.`).waitFor();
    const reviews = page.getByRole('table', { name: 'Your reviews' }).getByRole('row', { name: new RegExp(publisher.placementId) }).filter({ hasText: 'pending' });
    await reviews.waitFor();
    // And beside the placement, its latest review.
    expect(await row.getByTestId('latest-review').textContent()).toMatch(/^pendingrequested /);
    // A placement waiting in a review cannot be asked for again.
    expect(await page.getByRole('checkbox', { name: publisher.placementId }).count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'publisher-placements');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('shows each placement\'s latest review beside it: pending, rejected with its reason, approved, or none (pub42 P8)', async () => {
    const publisher = await createPublisher(service, 'pub-reviewed');
    const placement = (name: string) => `${name}-${publisher.placementId}`;
    const rejected = placement('rejected');
    const approved = placement('approved');
    const askedAgain = placement('asked-again');
    const neverAsked = placement('never-asked');
    for (const id of [rejected, approved, askedAgain, neverAsked]) {
      await service.admin('POST', `/v1/admin/publishers/${publisher.publisherId}/placements`, { id, name: `Chat ${id}` });
    }
    const requestReview = async (placementIds: string[]): Promise<string> => {
      const response = await fetch(`${service.url}/v1/publisher/integration-reviews`, {
        method: 'POST',
        headers: { authorization: `Bearer ${publisher.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ placement_ids: placementIds }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { data: { id: string } }).data.id;
    };
    const reason = 'Clicks bypass click_url: the card links straight to the advertiser, so no click is counted. Link the card to click_url and ask again.';
    await service.admin('POST', `/v1/admin/integration-reviews/${await requestReview([rejected, askedAgain])}/reject`, { reason });
    await service.admin('POST', `/v1/admin/integration-reviews/${await requestReview([approved])}/approve`, {});
    // Asked again after its rejection: its latest review is the pending one, not the rejection.
    await requestReview([askedAgain]);

    const page = await signIn(service, 'a publisher', publisher.token);
    const latest = (id: string) => page.locator(`tr[data-placement="${id}"]`).getByTestId('latest-review');
    await latest(rejected).waitFor();
    expect(await latest(rejected).textContent()).toMatch(/^rejected\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(await latest(rejected).getByTestId('review-reason').textContent()).toBe(`Reason: ${reason}`);
    expect(await latest(approved).textContent()).toMatch(/^approved\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await page.locator(`tr[data-placement="${approved}"]`).getByTestId('certification').textContent()).toBe('certified');
    expect(await latest(askedAgain).textContent()).toMatch(/^pendingrequested \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await latest(neverAsked).textContent()).toBe('None');
    expect(await latest(publisher.placementId).textContent()).toBe('None');
    // The column is named for a screen reader's table navigation.
    expect(await page.getByRole('table', { name: 'Your placements' }).getByRole('columnheader', { name: 'Latest review' }).count()).toBe(1);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'publisher-placement-reviews');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('labels the integration check summary as what it counts: the latest 50 impressions, not the whole window', async () => {
    const publisher = await createPublisher(service, 'pub-busy');
    await createActiveCampaign(service, await createAdvertiser(service, 'Busy Outfitters'), publisher.placementId);
    // 51 impressions (pixels fetched by this test, not a browser): one more than the check lists.
    for (let n = 0; n < 51; n += 1) {
      const { impression_url } = await servedTracking(service, publisher, 'rain jacket');
      expect((await fetch(impression_url)).status).toBe(200);
    }
    const page = await signIn(service, 'a publisher', publisher.token);
    await page.goto(`${service.url}/console#/check?id=${encodeURIComponent(publisher.placementId)}`);
    const summary = page.getByTestId('integration-summary');
    const checkPath = `/v1/publisher/placements/${encodeURIComponent(publisher.placementId)}/recent-impressions`;
    await expect
      .poll(async () => {
        await afterAnswers(page, checkPath, 1, () => page.getByRole('button', { name: 'Refresh' }).click());
        return summary.textContent();
      }, { timeout: 20_000, interval: 500 })
      .toMatch(/^Latest 50 impressions of the last 24 hours \(older ones are not counted here\): /);
    expect(await page.getByRole('table', { name: 'Recent impressions' }).locator('tbody tr').count()).toBe(50);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('pages the earnings table 100 placements at a time instead of stopping at the first 1000', async () => {
    const publisher = await createPublisher(service, 'pub-wide');
    for (let n = 1; n <= 100; n += 1) {
      await service.admin('POST', `/v1/admin/publishers/${publisher.publisherId}/placements`, { id: `${publisher.placementId}-${String(n).padStart(3, '0')}` });
    }
    const page = await signIn(service, 'a publisher', publisher.token);
    await page.getByRole('link', { name: 'Earnings' }).click();
    const earnings = page.getByRole('table', { name: 'Earnings by placement' });
    const pager = page.getByRole('navigation', { name: 'Pages of earnings by placement' });
    await pager.getByText('Rows 1–100', { exact: true }).waitFor();
    const firstPage = await earnings.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-placement')));
    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText('Row 101', { exact: true }).waitFor();
    const secondPage = await earnings.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-placement')));
    expect(firstPage.length).toBe(100);
    expect(secondPage.length).toBe(1);
    expect(new Set([...firstPage, ...secondPage]).size).toBe(101);
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    // A placement never asked for an ad has no eCPM, CTR or fill rate: a "—" seen and what it lacks
    // read out, as the advertiser's report shows its rates (con45: eCPM read "$0.00" without impressions).
    const quiet = earnings.locator('tbody tr').first();
    const shown = (column: string) => quiet.locator(`td[data-column="${column}"]`).evaluate((cell) =>
      `${cell.querySelector('[aria-hidden="true"]')?.textContent} (${cell.querySelector('.visually-hidden')?.textContent}, ${cell.getAttribute('title')})`);
    expect(await shown('eCPM (USD)')).toBe('— (no impressions, no impressions)');
    expect(await shown('CTR')).toBe('— (no impressions, no impressions)');
    expect(await shown('Fill rate')).toBe('— (no requests, no requests)');
    expect(await quiet.locator('td[data-column="Earnings (USD)"]').textContent()).toBe('$0.00');
    expect(await page.getByTestId('no-rate-note').textContent()).toBe(
      '— : nothing to divide by (eCPM and CTR without impressions, fill rate without requests). The API writes 0 there.',
    );
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('wraps a 128-character placement id instead of widening the page', async () => {
    const publisher = await createPublisher(service, 'p'.repeat(119));
    expect(publisher.placementId).toHaveLength(128);
    const page = await signIn(service, 'a publisher', publisher.token);
    const pageWidth = () => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    await page.goto(`${service.url}/console#/check?id=${encodeURIComponent(publisher.placementId)}`);
    await page.getByRole('heading', { name: publisher.placementId }).waitFor();
    await page.getByTestId('integration-summary').waitFor();
    const onCheck = await pageWidth();
    expect(onCheck.scroll).toBeLessThanOrEqual(onCheck.client);
    await screenshots(page, 'publisher-integration-check-long-id');
    await page.goto(`${service.url}/console#/placements`);
    await page.locator(`tr[data-placement="${publisher.placementId}"]`).waitFor();
    const onPlacements = await pageWidth();
    expect(onPlacements.scroll).toBeLessThanOrEqual(onPlacements.client);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
