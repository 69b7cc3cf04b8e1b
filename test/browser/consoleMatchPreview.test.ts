import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import { advertiserApi, consoleProblems, createAdvertiser, screenshots, signIn, withConsoleService } from './consoleKit.js';

const service = withConsoleService();

describe.skipIf(skipBrowserTests)('console in Chromium: why an ad is or is not shown', () => {
  it('the line item asks the match preview and says the answer in words; a line item without a creative says it cannot deliver', async () => {
    const advertiser = await createAdvertiser(service, 'Drizzle Gear');
    const composed = await advertiserApi<{ data: { campaign: { id: string } } }>(service, advertiser, 'POST', '/v1/advertiser/campaigns/compose', {
      campaign: { name: 'Rain jackets', brand_name: 'Drizzle Gear', user_id: advertiser.userId },
      line_item: {
        title: 'Hikers',
        budget: { daily: 50, currency: 'USD' },
        bids: { bid_type: 'tCPM', bid_value: 4 },
        targeting: { keywords: { include: ['rain jacket'], exclude: ['cheap'] }, placements: { include: ['chat-top'] } },
        creatives: [{ format: 'contextual_card', title: 'Stay dry', body: 'Light rain jackets.', cta: 'Shop', destination_url: `${service.url}/healthz` }],
      },
    });
    const campaignId = composed.data.campaign.id;
    // A second line item, without a creative: active with its campaign, but never served.
    await advertiserApi(service, advertiser, 'POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, {
      title: 'Runners',
      budget: { daily: 20, currency: 'USD' },
      bids: { bid_type: 'CPC', bid_value: 0.5 },
    });
    await advertiserApi(service, advertiser, 'POST', `/v1/advertiser/campaigns/${campaignId}/activate`, {});

    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.goto(`${service.url}/console#/campaign?id=${campaignId}`);
    const hikers = page.getByRole('region', { name: /Line item: Hikers/ });
    const runners = page.getByRole('region', { name: /Line item: Runners/ });
    await runners.getByTestId('line-item-no-creative').waitFor();
    expect(await runners.getByTestId('line-item-no-creative').textContent()).toBe('Cannot deliver: it has no creative. Add one below before it can be shown.');
    expect(await hikers.getByTestId('line-item-no-creative').count()).toBe(0);

    const box = hikers.getByRole('form', { name: 'Would Hikers show next to a conversation?' });
    await box.getByLabel('Question').fill('Which rain jacket for a wet hike in Scotland?');
    await box.getByLabel('Answer').fill('A breathable shell with taped seams.');
    const answer = box.getByTestId('match-preview');
    // The serving index picks the activated line item up within a second: ask until it has.
    await expect
      .poll(async () => {
        await box.getByRole('button', { name: 'Ask' }).click();
        await answer.waitFor();
        return (await answer.textContent())!.includes('Yes');
      }, { timeout: 10_000, interval: 300 })
      .toBe(true);
    const said = (await answer.textContent())!.replace(/\s+/g, ' ');
    expect(said).toContain('Yes: it could be shown next to this conversation.');
    expect(said).toContain('Keywords found: “rain jacket”.');
    expect(said).toContain('Not judged here, as only a real serve knows it: the placement (it runs on some placements only); the placement being certified (a CPM line item runs on certified placements only).');
    await screenshots(page, 'advertiser-match-preview-yes');

    await box.getByLabel('Question').fill('Where can I buy a cheap rain jacket?');
    await box.getByRole('button', { name: 'Ask' }).click();
    await answer.getByText('No: it would not be shown next to this conversation.').waitFor();
    expect((await answer.textContent())!.replace(/\s+/g, ' ')).toContain('Keywords to avoid found: “cheap”; an avoided keyword always wins.');

    const runnersBox = runners.getByRole('form', { name: 'Would Runners show next to a conversation?' });
    await runnersBox.getByLabel('Question').fill('Which running shoes?');
    await runnersBox.getByRole('button', { name: 'Ask' }).click();
    const runnersAnswer = runnersBox.getByTestId('match-preview');
    await runnersAnswer.waitFor();
    expect((await runnersAnswer.textContent())!.replace(/\s+/g, ' ')).toContain(
      'Held back: it is not being served at all now: its campaign or the line item is not active, or it has no creative.',
    );
    await screenshots(page, 'advertiser-match-preview-no');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
