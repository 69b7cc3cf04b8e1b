import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresServer, unavailableReason, type PostgresServer } from '../helpers/postgresServer.js';
import { skipBrowserTests } from './chromium.js';
import {
  advertiserApi,
  consoleProblems,
  createActiveCampaign,
  createAdvertiser,
  createPublisher,
  screenshots,
  signIn,
  startConsoleService,
  type ConsoleService,
} from './consoleKit.js';

/** A real PostgreSQL server of the test's own, stopped while the console is open. */
if (unavailableReason) console.warn(unavailableReason);

let server: PostgresServer;
let service: ConsoleService;

const skip = skipBrowserTests || unavailableReason !== undefined;

beforeAll(async () => {
  if (skip) return;
  server = await startPostgresServer();
  service = await startConsoleService({ databaseUrl: server.url });
});

afterAll(async () => {
  await service?.close();
  server?.destroy();
});

const unavailable = 'The service cannot reach its database right now; nothing was changed. Try again in a few seconds.';

describe.skipIf(skip)('console in Chromium: a Postgres outage', () => {
  it('says in words that nothing was changed, and the campaign list offers Retry, which shows it once Postgres is back', async () => {
    const advertiser = await createAdvertiser(service, 'Outage Outfitters');
    const publisher = await createPublisher(service, 'outage-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'Rain shells' }).first().click();
    const budget = page.getByRole('form', { name: 'Budget of Hikers' });
    await budget.waitFor();

    server.stop();
    await budget.getByLabel('Daily budget').fill('60');
    await budget.getByRole('button', { name: 'Save budget' }).click();
    await budget.getByRole('alert').getByText(unavailable).waitFor();

    // The budget typed is not saved, so leaving asks first (unsavedChanges.ts): leave anyway.
    const asked: string[] = [];
    page.once('dialog', (dialog) => { asked.push(dialog.message()); void dialog.accept(); });
    await page.getByRole('link', { name: 'Campaigns' }).first().click();
    // The campaign page goes when the address change reaches the page (an event after the click):
    // until then its budget form's alert, which has no Retry, is the one the words find.
    await budget.waitFor({ state: 'detached' });
    const alert = page.getByRole('alert').filter({ hasText: unavailable });
    await alert.waitFor();
    expect(asked).toEqual(['Leave this page? What you typed and did not save will be lost.']);
    expect(await alert.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await screenshots(page, 'advertiser-campaigns-postgres-down');

    server.start();
    await expect
      .poll(async () => {
        if ((await alert.count()) > 0) await alert.getByRole('button', { name: 'Retry' }).click();
        return page.getByRole('link', { name: 'Rain shells', exact: true }).count();
      }, { timeout: 20_000, interval: 500 })
      .toBe(1);
    // Nothing was saved while Postgres was down.
    await page.getByRole('link', { name: 'Rain shells', exact: true }).click();
    expect(await page.getByRole('form', { name: 'Budget of Hikers' }).getByLabel('Daily budget').inputValue()).toBe('50');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('does not say nothing was changed for a create sent with its Idempotency-Key, whose Retry adds it once when Postgres is back', async () => {
    const advertiser = await createAdvertiser(service, 'Outage Keyed Outfitters');
    const publisher = await createPublisher(service, 'outage-keyed-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'Rain shells' }).first().click();
    const add = page.getByRole('form', { name: 'Add a line item' });
    await add.waitFor();

    server.stop();
    await add.getByLabel('Line item title').fill('Night shift');
    await add.getByRole('button', { name: 'Add line item' }).click();
    // An earlier send of the same key whose answer was lost may still be saved (rev44b R3).
    const alert = add.getByRole('alert').filter({ hasText: 'The service cannot reach its database right now. Retry in a few seconds: it is saved once either way.' });
    await alert.waitFor();
    expect(await alert.textContent()).not.toContain('nothing was changed');

    server.start();
    const added = page.getByRole('heading', { name: /Line item: Night shift/ });
    await expect
      .poll(async () => {
        if ((await alert.count()) > 0) await alert.getByRole('button', { name: 'Retry' }).click();
        return added.count();
      }, { timeout: 20_000, interval: 500 })
      .toBe(1);
    const campaigns = await advertiserApi<{ data: { id: string }[] }>(service, advertiser, 'GET', '/v1/advertiser/campaigns');
    const lineItems = await advertiserApi<{ data: { title: string }[] }>(service, advertiser, 'GET', `/v1/advertiser/campaigns/${campaigns.data[0]!.id}/line-items`);
    expect(lineItems.data.map((lineItem) => lineItem.title).sort()).toEqual(['Hikers', 'Night shift']);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
