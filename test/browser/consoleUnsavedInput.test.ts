import { randomUUID } from 'node:crypto';
import type { Dialog, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
  advertiserApi,
  consoleProblems,
  createActiveCampaign,
  createAdvertiser,
  createPublisher,
  screenshots,
  seriousAccessibilityViolations,
  signIn,
  withConsoleService,
  type ConsoleService,
} from './consoleKit.js';

const service = withConsoleService();

const LEAVE = 'Leave this page? What you typed and did not save will be lost.';

/** Every question the page asks (confirm, beforeunload), answered as `answer` says at the time. */
function questions(page: Page) {
  const asked: string[] = [];
  const state = { accept: false };
  page.on('dialog', (dialog: Dialog) => {
    asked.push(dialog.type() === 'beforeunload' ? 'beforeunload' : dialog.message());
    void (state.accept ? dialog.accept() : dialog.dismiss());
  });
  return { asked, answer: (accept: boolean) => { state.accept = accept; } };
}

const hashOf = (page: Page) => new URL(page.url()).hash;

/**
 * Presses `press` on `form` with the answer of its POST to `path` cut after the service made it (the
 * connection resets), then *Retry*: checks the Retry sent the same Idempotency-Key and was answered
 * the first answer (Idempotent-Replayed), and returns that answer's data.
 */
async function cutThenRetry<Data>(page: Page, form: Locator, path: string, press: () => Promise<void>): Promise<Data> {
  const posted = (url: URL) => url.pathname === path;
  const keys: (string | undefined)[] = [];
  await page.route(posted, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    keys.push(route.request().headers()['idempotency-key']);
    expect((await route.fetch()).status()).toBe(201);
    await route.abort('connectionreset');
  });
  await press();
  const alert = form.getByRole('alert').filter({ hasText: 'The service did not answer, so this may have been saved or not. Retry sends it again: it is saved once either way.' });
  await alert.waitFor();
  await page.unroute(posted);
  const resent: (string | undefined)[] = [];
  await page.route(posted, async (route) => {
    if (route.request().method() === 'POST') resent.push(route.request().headers()['idempotency-key']);
    await route.continue();
  });
  const replayed = page.waitForResponse((response) => new URL(response.url()).pathname === path && response.request().method() === 'POST');
  await alert.getByRole('button', { name: 'Retry' }).click();
  const answer = await replayed;
  expect(answer.headers()['idempotent-replayed']).toBe('true');
  await page.unroute(posted);
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
  expect(resent).toEqual(keys);
  return ((await answer.json()) as { data: Data }).data;
}

/** Every row of an admin list, page after page (on a PostgreSQL server every test file shares it). */
async function allRows<Row>(service: ConsoleService, path: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: Row[]; next_cursor: string | null } = await service.admin('GET', `${path}?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    rows.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}

describe.skipIf(skipBrowserTests)('console in Chromium: typed input is not lost or saved twice by accident', () => {
  it('asks before a link, Back or closing the tab drops a typed form; asks nothing when nothing was typed or after a save', async () => {
    const advertiser = await createAdvertiser(service, 'Leaving Outfitters');
    const publisher = await createPublisher(service, 'leaving-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    const { asked, answer } = questions(page);

    // Nothing typed: the links and Back go without a question (the owner chosen for the advertiser of
    // an organization of one is not typed input).
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Owner').waitFor();
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('link', { name: 'Rain shells', exact: true }).click();
    await page.getByRole('heading', { name: 'Rain shells' }).waitFor();
    const campaignHash = hashOf(page);
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('table', { name: 'Campaigns' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Rain shells' }).waitFor();
    expect(asked).toEqual([]);

    // A line item typed into *Add a line item*: the Campaigns link asks; staying keeps the page, its
    // address and what was typed.
    const add = page.getByRole('form', { name: 'Add a line item' });
    await add.getByLabel('Line item title').click();
    await add.getByLabel('Line item title').pressSequentially('Night owls');
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await expect.poll(() => asked).toEqual([LEAVE]);
    // Node hears of the question before the page gets its answer and puts the address back (route.ts): polled.
    await expect.poll(() => hashOf(page)).toBe(campaignHash);
    expect(await add.getByLabel('Line item title').inputValue()).toBe('Night owls');
    // Back asks the same.
    await page.evaluate(() => history.back());
    await expect.poll(() => asked).toEqual([LEAVE, LEAVE]);
    await expect.poll(() => hashOf(page)).toBe(campaignHash);
    expect(await add.getByLabel('Line item title').inputValue()).toBe('Night owls');
    // Closing the tab (or reloading it) asks the browser's own question; staying keeps the page open.
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => asked).toEqual([LEAVE, LEAVE, 'beforeunload']);
    expect(page.isClosed()).toBe(false);
    expect(await add.getByLabel('Line item title').inputValue()).toBe('Night owls');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Once added, the form is empty and nothing is left unsaved: no question.
    await add.getByRole('button', { name: 'Add line item' }).click();
    await page.getByRole('heading', { name: /Line item: Night owls/ }).waitFor();
    await expect.poll(() => add.getByLabel('Line item title').inputValue()).toBe('');
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('table', { name: 'Campaigns' }).waitFor();
    expect(asked).toHaveLength(3);

    // An edit form of a line item's page: a changed budget asks; leaving anyway leaves.
    await page.getByRole('link', { name: 'Rain shells', exact: true }).click();
    const budget = page.getByRole('form', { name: 'Budget of Hikers' });
    await budget.getByLabel('Daily budget').fill('75');
    answer(true);
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('table', { name: 'Campaigns' }).waitFor();
    expect(asked).toEqual([LEAVE, LEAVE, 'beforeunload', LEAVE]);
    // Saved, it asks nothing.
    answer(false);
    await page.getByRole('link', { name: 'Rain shells', exact: true }).click();
    await budget.getByLabel('Daily budget').fill('75');
    await budget.getByRole('button', { name: 'Save budget' }).click();
    await budget.getByText('Budget saved.').waitFor();
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('table', { name: 'Campaigns' }).waitFor();
    expect(asked).toHaveLength(4);

    // New campaign with a name typed asks too.
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Campaign name').fill('Half typed');
    await page.getByRole('link', { name: 'Reports' }).click();
    await expect.poll(() => asked).toEqual([LEAVE, LEAVE, 'beforeunload', LEAVE, LEAVE]);
    expect(await page.getByLabel('Campaign name').inputValue()).toBe('Half typed');
    expect(consoleProblems(page)).toEqual([]);
    answer(true);
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => page.isClosed()).toBe(true);
  }, 90_000);

  it('asks the same before signing out, leaving a typed match preview, review request or any operator form (con45); not once sent or with nothing typed', async () => {
    const advertiser = await createAdvertiser(service, 'Asking Outfitters');
    const publisher = await createPublisher(service, 'asking-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);

    // The advertiser's match preview: a typed conversation asks before a link; once asked about, not.
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    const { asked, answer } = questions(page);
    await page.getByRole('link', { name: 'Rain shells', exact: true }).click();
    const preview = page.getByRole('form', { name: 'Would Hikers show next to a conversation?' });
    await preview.getByLabel('Question').fill('Which rain shell for hiking?');
    const campaignHash = hashOf(page);
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await expect.poll(() => asked).toEqual([LEAVE]);
    await expect.poll(() => hashOf(page)).toBe(campaignHash);
    // Sign out asks the same, and staying keeps the session and what was typed.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => asked).toEqual([LEAVE, LEAVE]);
    expect(await preview.getByLabel('Question').inputValue()).toBe('Which rain shell for hiking?');
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    await preview.getByRole('button', { name: 'Ask' }).click();
    await preview.getByTestId('match-preview').waitFor();
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('table', { name: 'Campaigns' }).waitFor();
    expect(asked).toHaveLength(2);
    // Nothing typed: Sign out asks nothing and signs out.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(asked).toHaveLength(2);
    await page.close();

    // The publisher's review request: a note typed asks before a link and before signing out;
    // leaving anyway signs out.
    const publisherPage = await signIn(service, 'a publisher', publisher.token);
    const publisherAsked = questions(publisherPage);
    await publisherPage.getByLabel('Note for the reviewer (optional)').fill('The ad shows under the answer.');
    await publisherPage.getByRole('link', { name: 'Earnings' }).click();
    await expect.poll(() => publisherAsked.asked).toEqual([LEAVE]);
    expect(await publisherPage.getByLabel('Note for the reviewer (optional)').inputValue()).toBe('The ad shows under the answer.');
    publisherAsked.answer(true);
    await publisherPage.getByRole('button', { name: 'Sign out' }).click();
    await publisherPage.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(publisherAsked.asked).toEqual([LEAVE, LEAVE]);
    await publisherPage.close();

    // The operator's forms: a review's reason, a new organization's name, a placement's reason, a
    // new key's permissions, a placement being registered; each asks before a link or Back.
    const review = await fetch(`${service.url}/v1/publisher/integration-reviews`, {
      method: 'POST',
      headers: { authorization: `Bearer ${publisher.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ placement_ids: [publisher.placementId] }),
    });
    expect(review.status).toBe(201);
    const operator = await signIn(service, 'an operator', service.adminToken);
    const operatorAsked = questions(operator);
    const leaves = async (type: () => Promise<void>, leave: () => Promise<unknown>) => {
      const before = hashOf(operator);
      const count = operatorAsked.asked.length;
      await type();
      await leave();
      await expect.poll(() => operatorAsked.asked.length).toBe(count + 1);
      await expect.poll(() => hashOf(operator)).toBe(before);
    };
    const card = operator.getByRole('listitem', { name: `Review of ${publisher.placementId}` });
    await leaves(() => card.getByLabel('Reason').fill('Pixels fire from a server.'), () => operator.getByRole('link', { name: 'Organizations', exact: true }).click());
    expect(await card.getByLabel('Reason').inputValue()).toBe('Pixels fire from a server.');
    await card.getByLabel('Reason').fill('');
    await operator.getByRole('link', { name: 'Organizations', exact: true }).click();
    await leaves(() => operator.getByLabel('Organization name').fill('Half made'), () => operator.getByRole('link', { name: 'Publishers', exact: true }).click());
    await leaves(async () => undefined, () => operator.getByRole('button', { name: 'Sign out' }).click());
    expect(await operator.getByLabel('Organization name').inputValue()).toBe('Half made');
    // Created, the form is empty and asks nothing.
    await operator.getByRole('button', { name: 'Create organization' }).click();
    const created = operator.getByRole('status').getByRole('link', { name: 'Half made' });
    await created.waitFor();
    await created.click();
    await operator.getByRole('form', { name: 'Create an API key' }).waitFor();
    await leaves(() => operator.getByLabel('Permissions').fill('reporting'), () => operator.evaluate(() => history.back()));
    await operator.getByLabel('Permissions').fill('');
    await operator.goto(`${service.url}/console#/placements?id=${encodeURIComponent(publisher.placementId)}`);
    const reason = operator.getByRole('main').getByLabel('Reason');
    await leaves(() => reason.fill('Checked by hand.'), () => operator.getByRole('link', { name: 'Totals' }).click());
    await reason.fill('');
    await operator.getByRole('link', { name: 'Publishers', exact: true }).click();
    await operator.getByRole('link', { name: `Publisher of ${publisher.placementId}`, exact: true }).click();
    await leaves(() => operator.getByLabel('Placement id').fill('second-slot'), () => operator.getByRole('link', { name: 'Integration reviews' }).click());
    expect(await seriousAccessibilityViolations(operator)).toEqual([]);
    expect(operatorAsked.asked.every((question) => question === LEAVE)).toBe(true);
    // Leaving anyway signs out.
    operatorAsked.answer(true);
    const count = operatorAsked.asked.length;
    await operator.getByRole('button', { name: 'Sign out' }).click();
    await operator.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(operatorAsked.asked).toHaveLength(count + 1);
    expect(consoleProblems(operator)).toEqual([]);
    await operator.close({ runBeforeUnload: true });
    await expect.poll(() => operator.isClosed()).toBe(true);
  }, 120_000);

  it('sends a create that got no answer again with Retry under the same Idempotency-Key, and makes one campaign (one line item); a read that got none offers Retry', async () => {
    const advertiser = await createAdvertiser(service, 'Lost Answer Outfitters');
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Campaign name').fill('Twice maybe');
    await page.getByLabel('Brand name').fill('Lost Answer Outfitters');
    await page.getByLabel('Line item title').fill('Only once');
    // The service makes the campaign; its answer is lost on the way back (the connection resets).
    const keys: (string | undefined)[] = [];
    await page.route('**/v1/advertiser/campaigns/compose', async (route) => {
      keys.push(route.request().headers()['idempotency-key']);
      expect((await route.fetch()).status()).toBe(201);
      await route.abort('connectionreset');
    });
    await page.getByRole('button', { name: 'Create campaign' }).click();
    const alert = page.locator('#compose-errors [role="alert"]');
    await expect.poll(async () => ((await alert.count()) > 0 ? alert.locator('p').textContent() : null)).toBe(
      'The service did not answer, so this may have been saved or not. Retry sends it again: it is saved once either way.',
    );
    expect(await page.getByLabel('Campaign name').inputValue()).toBe('Twice maybe');
    const listed = await advertiserApi<{ data: { name: string }[] }>(service, advertiser, 'GET', '/v1/advertiser/campaigns');
    expect(listed.data.map((campaign) => campaign.name)).toEqual(['Twice maybe']);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'advertiser-compose-no-answer');
    await page.unroute('**/v1/advertiser/campaigns/compose');

    // Retry sends the same submission with the same key: the API answers the first answer, and the
    // page opens the one campaign it made.
    const resent: (string | undefined)[] = [];
    await page.route('**/v1/advertiser/campaigns/compose', async (route) => {
      resent.push(route.request().headers()['idempotency-key']);
      await route.continue();
    });
    await alert.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('heading', { name: 'Twice maybe' }).waitFor();
    await page.unroute('**/v1/advertiser/campaigns/compose');
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(resent).toEqual(keys);
    const after = await advertiserApi<{ data: { id: string; name: string }[] }>(service, advertiser, 'GET', '/v1/advertiser/campaigns');
    expect(after.data.map((campaign) => campaign.name)).toEqual(['Twice maybe']);

    // Add a line item the same way: its answer cut, Retry adds it once.
    const lineItems = `**/v1/advertiser/campaigns/${after.data[0]!.id}/line-items`;
    await page.route(lineItems, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      expect((await route.fetch()).status()).toBe(201);
      await route.abort('connectionreset');
    });
    const add = page.getByRole('form', { name: 'Add a line item' });
    await add.getByLabel('Line item title').fill('Night owls');
    await add.getByRole('button', { name: 'Add line item' }).click();
    const addAlert = add.getByRole('alert').filter({ hasText: 'Retry sends it again: it is saved once either way.' });
    await addAlert.waitFor();
    await page.unroute(lineItems);
    await addAlert.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('heading', { name: /Line item: Night owls/ }).waitFor();
    const added = await advertiserApi<{ data: { id: string; title: string }[] }>(service, advertiser, 'GET', `/v1/advertiser/campaigns/${after.data[0]!.id}/line-items`);
    expect(added.data.map((lineItem) => lineItem.title).sort()).toEqual(['Night owls', 'Only once']);

    // Add a creative the same way (rev44b R9): its answer cut, Retry sends the same key and adds it once.
    const nightOwls = added.data.find((lineItem) => lineItem.title === 'Night owls')!;
    const creatives = `**/v1/advertiser/line-items/${nightOwls.id}/creatives`;
    const creativeKeys: (string | undefined)[] = [];
    await page.route(creatives, async (route) => {
      creativeKeys.push(route.request().headers()['idempotency-key']);
      expect((await route.fetch()).status()).toBe(201);
      await route.abort('connectionreset');
    });
    const creative = page.getByRole('form', { name: 'New creative for Night owls' });
    await creative.getByLabel('Title').fill('Lamps for owls');
    await creative.getByLabel('Call to action').fill('See lamps');
    await creative.getByLabel('Destination URL').fill('https://owls.example/lamps');
    await creative.getByLabel('Body').fill('Reading late? Light that does not keep you up.');
    await creative.getByRole('button', { name: 'Add creative' }).click();
    const creativeAlert = creative.getByRole('alert').filter({ hasText: 'Retry sends it again: it is saved once either way.' });
    await creativeAlert.waitFor();
    await page.unroute(creatives);
    const resentCreative: (string | undefined)[] = [];
    await page.route(creatives, async (route) => {
      resentCreative.push(route.request().headers()['idempotency-key']);
      await route.continue();
    });
    const replayed = page.waitForResponse((response) => response.url().endsWith(`/line-items/${nightOwls.id}/creatives`) && response.request().method() === 'POST');
    await creativeAlert.getByRole('button', { name: 'Retry' }).click();
    expect((await replayed).headers()['idempotent-replayed']).toBe('true');
    await page.unroute(creatives);
    expect(creativeKeys).toHaveLength(1);
    expect(creativeKeys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(resentCreative).toEqual(creativeKeys);
    const withCreative = await advertiserApi<{ data: { creatives: { title: string }[] } }>(service, advertiser, 'GET', `/v1/advertiser/line-items/${nightOwls.id}`);
    expect(withCreative.data.creatives.map((made) => made.title)).toEqual(['Lamps for owls']);

    // A read that got no answer is asked again with Retry.
    const { asked } = questions(page);
    const campaignList = (url: URL) => url.pathname === '/v1/advertiser/campaigns';
    await page.route(campaignList, (route) => route.abort('connectionrefused'));
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    const readAlert = page.getByRole('alert').filter({ hasText: 'The service did not answer: it may be restarting, or this computer may be offline. Try again in a few seconds.' });
    await readAlert.waitFor();
    expect(asked).toEqual([]);
    await page.unroute(campaignList);
    await readAlert.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('link', { name: 'Twice maybe', exact: true }).waitFor();
    expect(consoleProblems(page)).toEqual([]);
  }, 60_000);

  it("sends the operator's five creates again with Retry under the same Idempotency-Key: one organization, key, publisher, token and placement, each key and token shown once from the replayed answer", async () => {
    const suffix = randomUUID().slice(0, 8);
    const page = await signIn(service, 'an operator', service.adminToken);
    await page.getByRole('link', { name: 'Organizations', exact: true }).click();

    // An organization: its answer cut, Retry makes it once and shows it as made.
    const organizationName = `Once Outfitters ${suffix}`;
    const newOrganization = page.getByRole('form', { name: 'Create an organization' });
    await newOrganization.getByLabel('Organization name').fill(organizationName);
    const organization = await cutThenRetry<{ id: string }>(page, newOrganization, '/v1/admin/organizations', () =>
      newOrganization.getByRole('button', { name: 'Create organization' }).click(),
    );
    const organizations = await allRows<{ id: string; name: string }>(service, '/v1/admin/organizations');
    expect(organizations.filter((row) => row.name === organizationName).map((row) => row.id)).toEqual([organization.id]);
    expect(await newOrganization.getByLabel('Organization name').inputValue()).toBe('');
    await page.getByRole('status').getByRole('link', { name: organizationName }).click();

    // An API key: the replayed answer is the first one, its secret included, shown once as it would
    // have been; it is the organization's one key, and it works.
    const newKey = page.getByRole('form', { name: 'Create an API key' });
    await newKey.getByLabel('Permissions').fill('reporting');
    const keyPath = `/v1/admin/organizations/${organization.id}/api-keys`;
    const key = await cutThenRetry<{ id: string; key: string }>(page, newKey, keyPath, () => newKey.getByRole('button', { name: 'Create API key' }).click());
    await expect.poll(() => newKey.locator('code.secret').textContent()).toBe(key.key);
    expect(await newKey.locator('.notice strong').textContent()).toBe(`API key ${key.id}`);
    expect((await allRows<{ id: string }>(service, keyPath)).map((row) => row.id)).toEqual([key.id]);
    const me = await fetch(`${service.url}/v1/advertiser/me`, { headers: { 'x-api-key': key.key } });
    expect(me.status).toBe(200);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-api-key-no-answer-retried');

    // A publisher, its first token shown once from the replayed answer.
    await page.getByRole('link', { name: 'Publishers', exact: true }).click();
    const publisherName = `Once Press ${suffix}`;
    const newPublisher = page.getByRole('form', { name: 'Create a publisher' });
    await newPublisher.getByLabel('Publisher name').fill(publisherName);
    const publisher = await cutThenRetry<{ id: string; token: string }>(page, newPublisher, '/v1/admin/publishers', () =>
      newPublisher.getByRole('button', { name: 'Create publisher' }).click(),
    );
    await expect.poll(() => newPublisher.locator('code.secret').textContent()).toBe(publisher.token);
    const publishers = await allRows<{ id: string; name: string }>(service, '/v1/admin/publishers');
    expect(publishers.filter((row) => row.name === publisherName).map((row) => row.id)).toEqual([publisher.id]);
    await page.getByRole('status').getByRole('link', { name: publisherName }).click();

    // A placement registered once (sent twice plainly, the second would be 409 for the one made).
    const placementId = `once-slot-${suffix}`;
    const newPlacement = page.getByRole('form', { name: 'Register a placement' });
    await newPlacement.getByLabel('Placement id').fill(placementId);
    const placementsPath = `/v1/admin/publishers/${publisher.id}/placements`;
    await cutThenRetry(page, newPlacement, placementsPath, () => newPlacement.getByRole('button', { name: 'Register placement' }).click());
    await newPlacement.getByText(`Registered placement ${placementId}, uncertified.`).waitFor();
    expect((await allRows<{ id: string }>(service, placementsPath)).map((row) => row.id)).toEqual([placementId]);

    // A token issued once: the publisher has its first token and this one, shown once.
    const newToken = page.getByRole('form', { name: 'Issue a token' });
    const tokensPath = `/v1/admin/publishers/${publisher.id}/tokens`;
    const token = await cutThenRetry<{ id: string; token: string }>(page, newToken, tokensPath, () => newToken.getByRole('button', { name: 'Issue token' }).click());
    await expect.poll(() => newToken.locator('code.secret').textContent()).toBe(token.token);
    const tokens = await allRows<{ id: string }>(service, tokensPath);
    expect(tokens).toHaveLength(2);
    expect(tokens.map((row) => row.id)).toContain(token.id);
    expect(consoleProblems(page)).toEqual([]);
  }, 90_000);
});
