import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
  consoleProblems,
  createPublisher,
  screenshots,
  seriousAccessibilityViolations,
  signIn,
  withConsoleService,
} from './consoleKit.js';

const service = withConsoleService();

/** The publisher asks for a review of its placement through its own API, as the console's publisher page does. */
async function requestReview(token: string, placementId: string): Promise<void> {
  const response = await fetch(`${service.url}/v1/publisher/integration-reviews`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ placement_ids: [placementId], note: '<script>alert(1)</script> see the chat page' }),
  });
  expect(response.status).toBe(201);
}

async function certification(placementId: string): Promise<string> {
  return (await service.admin<{ data: { certification: string } }>('GET', `/v1/admin/placements/${placementId}`)).data.certification;
}

/**
 * Clicks the link named `link` in the list table `table`, going to the next page of the list (its
 * pager, `Pages of <what>`) until the link is on the page: on a shared PostgreSQL server other test
 * files' rows come first, oldest first.
 */
async function openFromList(page: Page, table: string, what: string, link: string): Promise<void> {
  for (let pageNumber = 1; ; pageNumber += 1) {
    const rows = page.getByRole('table', { name: table });
    await rows.waitFor();
    const found = rows.getByRole('link', { name: link, exact: true });
    const next = page.getByRole('navigation', { name: `Pages of ${what}` }).getByRole('button', { name: 'Next page', disabled: false });
    // A list reloading after a create keeps its old rows until the new ones arrive: wait for the
    // link or a way on, not for whatever the table shows first.
    await found.or(next).first().waitFor();
    if ((await found.count()) > 0) return found.click();
    await next.click();
    await page.getByText(`Page ${pageNumber + 1}`, { exact: true }).waitFor();
  }
}

describe.skipIf(skipBrowserTests)('console in Chromium: the operator', () => {
  it('signs in with the admin token, certifies a placement from the review queue, and revokes it with a reason', async () => {
    const publisher = await createPublisher(service, 'op-chat-1');
    await requestReview(publisher.token, publisher.placementId);

    const page = await signIn(service, 'an operator', service.adminToken);
    await page.getByRole('heading', { name: 'Integration reviews', level: 1 }).waitFor();
    const review = page.getByRole('listitem', { name: `Review of ${publisher.placementId}` });
    await review.waitFor();
    // The publisher's note is shown as text; the publisher by its name, a link to its page.
    await review.getByText('<script>alert(1)</script> see the chat page', { exact: false }).waitFor();
    expect(await review.getByRole('link', { name: `Publisher of ${publisher.placementId}` }).getAttribute('href')).toBe(`#/publisher?id=${publisher.publisherId}`);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-review-queue');

    await review.getByLabel('Reason').fill('pixels fire from browsers');
    await review.getByRole('button', { name: 'Approve and certify' }).click();
    await page.getByText(`Approved: ${publisher.placementId} certified.`).waitFor();
    // Other tests share the queue on a PostgreSQL server: this review leaves it, whatever else waits.
    await review.waitFor({ state: 'detached' });
    expect(await certification(publisher.placementId)).toBe('certified');

    // From the list of publishers to this one's placements, and on to the placement: no id typed.
    await page.getByRole('link', { name: 'Publishers', exact: true }).click();
    await openFromList(page, 'Publishers', 'publishers', `Publisher of ${publisher.placementId}`);
    const placements = page.getByRole('table', { name: 'Placements' });
    await expect.poll(() => placements.getByRole('row', { name: new RegExp(publisher.placementId) }).getByTestId('certification').textContent()).toBe('certified');
    await placements.getByRole('link', { name: publisher.placementId }).click();
    await expect.poll(() => page.getByTestId('certification').textContent()).toBe('certified');
    const history = page.getByRole('table', { name: 'Certification history' });
    await history.getByRole('cell', { name: 'pixels fire from browsers' }).waitFor();
    // It names its publisher, a link back to the publisher's page (it said the publisher's id).
    await page.getByRole('main').getByRole('link', { name: `Publisher of ${publisher.placementId}`, exact: true }).waitFor({ timeout: 5_000 });

    // Revoking takes a reason, and is asked twice; the answer takes the focus.
    const reasonField = page.getByLabel('Reason');
    await page.getByRole('button', { name: 'Revoke certification' }).click();
    await expect.poll(() => reasonField.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => reasonField.evaluate((field) => field === document.activeElement)).toBe(true);
    expect(await certification(publisher.placementId)).toBe('certified');
    await reasonField.fill('pixels now come from a server');
    await page.getByRole('button', { name: 'Revoke certification' }).click();
    const question = page.getByRole('group', { name: 'Revoke certification' });
    await question.getByText(/tCPM demand stops serving here at once/).waitFor();
    // The focus moves once the question is drawn (an effect, after the next frame): waited for.
    await expect.poll(() => question.getByRole('button', { name: 'Yes, revoke' }).evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await certification(publisher.placementId)).toBe('certified');
    await screenshots(page, 'operator-placement-revoke-question');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('certification').textContent()).toBe('revoked');
    const revoked = page.getByRole('status').filter({ hasText: 'Revoked: only CPC and CPA demand serves here now.' });
    await expect.poll(() => revoked.evaluate((status) => status === document.activeElement)).toBe(true);
    await history.getByRole('cell', { name: 'pixels now come from a server' }).waitFor();
    expect(await certification(publisher.placementId)).toBe('revoked');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-placement');
    // Another placement looked up: the last one's answer goes.
    await page.getByLabel('Placement id').fill('no-such-placement');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText(/not found/i).first().waitFor();
    expect(await revoked.count()).toBe(0);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('asks before *Look up* drops a reason typed for one placement, and never carries it to another (rev45 R4)', async () => {
    const first = await createPublisher(service, 'op-reason-a');
    const second = await createPublisher(service, 'op-reason-b');
    const page = await signIn(service, 'an operator', service.adminToken);
    const asked: string[] = [];
    const answer = { leave: false };
    page.on('dialog', (dialog) => { asked.push(dialog.message()); void (answer.leave ? dialog.accept() : dialog.dismiss()); });
    await page.goto(`${service.url}/console#/placements?id=${encodeURIComponent(first.placementId)}`);
    const main = page.getByRole('main');
    const shows = (placementId: string) => main.getByText(`Placement ${placementId} of publisher`).waitFor();
    await shows(first.placementId);
    const reason = main.getByLabel('Reason');
    await reason.fill(`bot traffic on ${first.placementId}`);
    // Looking up another placement asks; staying keeps this placement and the reason.
    await page.getByLabel('Placement id').fill(second.placementId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => asked).toEqual(['Leave this page? What you typed and did not save will be lost.']);
    expect(new URL(page.url()).hash).toBe(`#/placements?id=${encodeURIComponent(first.placementId)}`);
    expect(await reason.inputValue()).toBe(`bot traffic on ${first.placementId}`);
    // Leaving anyway: the other placement's reason is empty, so nothing typed for the first reaches its publisher.
    answer.leave = true;
    await page.getByRole('button', { name: 'Look up' }).click();
    await shows(second.placementId);
    await expect.poll(() => reason.inputValue()).toBe('');
    expect(asked).toHaveLength(2);
    // Nothing typed: Look up asks nothing.
    await page.getByLabel('Placement id').fill(first.placementId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await shows(first.placementId);
    expect(asked).toHaveLength(2);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('checks a rejection has a reason before sending it, and moves focus to the next review after each decision', async () => {
    const first = await createPublisher(service, 'op-focus-1');
    const second = await createPublisher(service, 'op-focus-2');
    await requestReview(first.token, first.placementId);
    await requestReview(second.token, second.placementId);
    const page = await signIn(service, 'an operator', service.adminToken);
    const decisions: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/v1/admin/integration-reviews/')) decisions.push(request.url());
    });
    const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent}`);

    const review = page.getByRole('listitem', { name: `Review of ${first.placementId}` });
    await review.getByRole('button', { name: 'Reject' }).focus();
    await page.keyboard.press('Enter');
    const reason = review.getByLabel('Reason');
    await expect.poll(() => reason.getAttribute('aria-invalid')).toBe('true');
    // The error is its own sentence after the hint, not "... shown to the publisher. is required".
    expect(await reason.evaluate((input) => (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent).join(' '))).toBe(
      'Required to reject; shown to the publisher. Enter a reason: a rejection needs one.',
    );
    expect(decisions).toEqual([]);
    await screenshots(page, 'operator-review-reject-empty');

    await reason.fill('the pixel fires twice');
    await review.getByRole('button', { name: 'Reject' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText(`Rejected the review of ${first.placementId}.`).waitFor();
    await review.waitFor({ state: 'detached' });
    await expect.poll(focused).toMatch(/^(LI Review of |P .*waiting)/);
    expect(decisions).toHaveLength(1);

    const next = page.getByRole('listitem', { name: `Review of ${second.placementId}` });
    await next.getByLabel('Reason').fill('pixels fire from browsers');
    await next.getByRole('button', { name: 'Approve and certify' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText(`Approved: ${second.placementId} certified.`).waitFor();
    await next.waitFor({ state: 'detached' });
    await expect.poll(focused).toMatch(/^(LI Review of |P .*(waiting|No review))/);
    expect(await certification(second.placementId)).toBe('certified');
    expect(await certification(first.placementId)).toBe('uncertified');
    await screenshots(page, 'operator-review-decided');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('browses organizations to one, adds a user, creates an API key shown once that works, and revokes it from the list', async () => {
    // A full page (20) of older organizations: the new one is found by paging, not on the first page.
    for (let n = 0; n < 20; n += 1) await service.admin('POST', '/v1/admin/organizations', { name: `Older Co ${n}` });
    const page = await signIn(service, 'an operator', service.adminToken);
    await page.getByRole('link', { name: 'Organizations', exact: true }).click();
    const orgName = `Console Co ${randomUUID().slice(0, 8)}`;
    const orgForm = page.getByRole('form', { name: 'Create an organization' });
    // Enter twice (a habit, a key bounce) makes one organization: the second press while the first
    // is in flight is dropped, and the created name leaves the field.
    const creates: string[] = [];
    page.on('request', (request) => { if (request.method() === 'POST' && request.url().endsWith('/v1/admin/organizations')) creates.push(request.postData() ?? ''); });
    const orgNameField = orgForm.getByLabel('Organization name');
    await orgNameField.fill(orgName);
    // The service's answer is held until both presses are in, as a slower network would.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/v1/admin/organizations', async (route) => {
      if (route.request().method() === 'POST') await held;
      await route.continue();
    });
    await orgNameField.press('Enter');
    await orgNameField.press('Enter');
    await expect.poll(() => creates.length).toBe(1);
    answer();
    await orgForm.getByText('Created').waitFor();
    await page.unroute('**/v1/admin/organizations');
    expect(creates).toHaveLength(1);
    expect(await orgNameField.inputValue()).toBe('');
    // A press more after the answer sends an empty name: refused, and the focus goes to the field it names.
    await orgNameField.press('Enter');
    await expect.poll(() => orgNameField.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => orgNameField.evaluate((field) => field === document.activeElement)).toBe(true);
    expect(creates).toHaveLength(2);
    await page.getByRole('table', { name: 'Organizations' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-organizations');
    await openFromList(page, 'Organizations', 'organizations', orgName);
    expect(new URL(page.url()).hash).toContain('#/organization?');
    await page.getByRole('heading', { name: orgName, level: 2 }).waitFor();
    // A bookmark or a shared link carries the id only: the name shown is the API's, not the link's.
    const orgId = new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('id')!;
    await page.goto(`${service.url}/console#/organization?${new URLSearchParams({ id: orgId, name: 'Not its name' })}`);
    await page.reload();
    await page.getByRole('heading', { name: orgName, level: 2 }).waitFor();
    expect(await page.getByRole('heading', { name: 'Not its name' }).count()).toBe(0);
    await page.getByText('No user yet', { exact: false }).waitFor();

    const userForm = page.getByRole('form', { name: 'Add a user' });
    await userForm.getByLabel('Email').fill('not an email');
    await userForm.getByRole('button', { name: 'Add user' }).click();
    await expect.poll(() => userForm.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await userForm.getByLabel('Email').fill('owner@console.test');
    await userForm.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('table', { name: 'Users' }).getByRole('cell', { name: 'owner@console.test' }).waitFor();

    const keyForm = page.getByRole('form', { name: 'Create an API key' });
    await keyForm.getByLabel('Permissions').fill('reporting');
    await keyForm.getByRole('button', { name: 'Create API key' }).click();
    const key = (await keyForm.locator('code.secret').textContent())!;
    const keyId = (await keyForm.getByText(/^API key /).textContent())!.match(/API key ([0-9a-f-]{36})/)![1]!;
    const keys = page.getByRole('table', { name: 'API keys' });
    const keyRow = keys.getByRole('row').filter({ has: page.locator('code', { hasText: keyId }) });
    await keyRow.getByText('live').waitFor();
    // The list shows the key's id and permissions, never the key itself.
    expect(await keyRow.textContent()).toContain('reporting');
    expect(await keys.textContent()).not.toContain(key);
    const asAdvertiser = () => fetch(`${service.url}/v1/advertiser/campaigns`, { headers: { 'x-api-key': key } }).then((response) => response.status);
    expect(await asAdvertiser()).toBe(200);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-organization');

    // One click only asks: the key still works until the question is answered yes, and Cancel keeps it.
    // Asked on a phone's screen: the key id stays one line (its table scrolls), and the question,
    // though its Revoke button is past the first screen of the table, is on screen whole.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await keyRow.locator('code').evaluate((code) => code.getClientRects().length)).toBe(1);
    // Wider than the screen, the table's box is a region in the tab order, scrolled with the arrow keys (tableWrap.ts).
    const keysBox = page.getByRole('region', { name: 'API keys, scrolls sideways' });
    await expect.poll(() => keysBox.getAttribute('tabindex')).toBe('0');
    expect(await keysBox.getByRole('table', { name: 'API keys' }).count()).toBe(1);
    await keyRow.getByRole('button', { name: `Revoke API key ${keyId}` }).click();
    const question = keys.getByRole('group', { name: `Revoke API key ${keyId}` });
    await question.getByText('cannot be undone', { exact: false }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, revoke');
    const asked = (await question.boundingBox())!;
    expect(asked.x).toBeGreaterThanOrEqual(0);
    expect(asked.x + asked.width).toBeLessThanOrEqual(390);
    expect(await asAdvertiser()).toBe(200);
    await screenshots(page, 'operator-organization-revoke-question');
    await question.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Revoke API key ${keyId}`);
    expect(await keyRow.getByText('live').count()).toBe(1);
    expect(await asAdvertiser()).toBe(200);
    // Answered from the keyboard: the focus is on "Yes, revoke". The key was the list's only live
    // one, so with its Revoke button gone the focus goes to the list's heading, not to the page.
    await keyRow.getByRole('button', { name: `Revoke API key ${keyId}` }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, revoke');
    await page.keyboard.press('Enter');
    await keyRow.getByText('revoked').waitFor();
    expect(await question.count()).toBe(0);
    expect(await keyRow.getByRole('button').count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.outerHTML)).toBe('<h2 id="api-keys-heading" tabindex="-1">API keys</h2>');
    expect(await asAdvertiser()).toBe(401);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('shows an unknown publisher as one not-found message, without lists or forms', async () => {
    const page = await signIn(service, 'an operator', service.adminToken);
    await page.goto(`${service.url}/console#/publisher?id=00000000-0000-0000-0000-000000000000&name=Ghost`);
    await page.reload();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await page.getByText(/not found/i).count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Ghost' }).count()).toBe(0);
    expect(await page.locator('main form').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Register placement|Issue token/ }).count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('shows an unknown organization as one not-found message, without lists or forms', async () => {
    const page = await signIn(service, 'an operator', service.adminToken);
    const unknown = '00000000-0000-0000-0000-000000000000';
    await page.goto(`${service.url}/console#/organization?id=${unknown}`);
    await page.reload();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await page.getByText(/not found/i).count()).toBe(1);
    expect(await page.locator('main form').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Add user|Create API key/ }).count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-organization-not-found');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('browses publishers to one, registers a placement, rotates its token from the list, and certifies the placement with a reason', async () => {
    const page = await signIn(service, 'an operator', service.adminToken);
    await page.getByRole('link', { name: 'Publishers', exact: true }).click();
    const publisherName = `Console Chat ${randomUUID().slice(0, 8)}`;
    const publisherForm = page.getByRole('form', { name: 'Create a publisher' });
    await publisherForm.getByLabel('Publisher name').fill(publisherName);
    await publisherForm.getByRole('button', { name: 'Create publisher' }).click();
    const firstToken = (await publisherForm.locator('code.secret').textContent())!;
    await openFromList(page, 'Publishers', 'publishers', publisherName);
    await page.getByRole('heading', { name: publisherName, level: 2 }).waitFor();
    // A bookmark or a shared link carries the id only: the name shown is the API's, not the link's.
    const publisherId = new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('id')!;
    for (const link of [`id=${publisherId}`, `id=${publisherId}&name=Not+its+name`]) {
      await page.goto(`${service.url}/console#/publisher?${link}`);
      await page.reload();
      await page.getByRole('heading', { name: publisherName, level: 2 }).waitFor();
      expect(await page.getByRole('heading', { name: 'Not its name' }).count()).toBe(0);
    }

    // The revenue share: the default, then a scheduled one (a typo's year) shows before it prices a day.
    await page.getByText('Earns 70% of the valid spend on its placements today (the default: no share set).').waitFor();
    await service.admin('PUT', `/v1/admin/publishers/${publisherId}/revenue-share`, { revenue_share: 0.065, effective_from: '2030-01-01' });
    await page.reload();
    const scheduled = page.getByRole('table', { name: 'Scheduled revenue shares' });
    await scheduled.waitFor();
    expect(await scheduled.getByRole('row').allTextContents()).toEqual(['From (UTC)Share', '2030-01-016.5%']);

    const placementId = `console-chat-${randomUUID().slice(0, 8)}`;
    const placementForm = page.getByRole('form', { name: 'Register a placement' });
    await placementForm.getByLabel('Placement id').fill(placementId);
    await placementForm.getByLabel('Name (optional)').fill('<b>Answer</b> sidebar');
    await placementForm.getByRole('button', { name: 'Register placement' }).click();
    const placementRow = page.getByRole('table', { name: 'Placements' }).getByRole('row', { name: new RegExp(placementId) });
    await placementRow.getByTestId('certification').waitFor();
    expect(await placementRow.getByTestId('certification').textContent()).toBe('uncertified');
    // The name is shown as typed, markup included.
    await placementRow.getByRole('cell', { name: '<b>Answer</b> sidebar' }).waitFor();

    const tokens = page.getByRole('table', { name: 'Tokens' });
    await expect.poll(() => tokens.getByText('live').count()).toBe(1);
    const tokenForm = page.getByRole('form', { name: 'Issue a token' });
    await tokenForm.getByRole('button', { name: 'Issue token' }).click();
    const secondToken = (await tokenForm.locator('code.secret').textContent())!;
    const secondTokenId = (await tokenForm.locator('.notice strong').textContent())!.replace(/^Token /, '');
    await expect.poll(() => tokens.getByText('live').count()).toBe(2);
    expect(await tokens.textContent()).not.toContain(firstToken);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-publisher');
    await page.setViewportSize({ width: 390, height: 844 });
    for (const table of ['Placements', 'Tokens']) {
      await expect.poll(() => page.getByRole('region', { name: `${table}, scrolls sideways` }).getAttribute('tabindex')).toBe('0');
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    const asPublisher = (token: string) =>
      fetch(`${service.url}/v1/publisher/placements`, { headers: { authorization: `Bearer ${token}` } });
    expect((await asPublisher(firstToken)).status).toBe(200);
    // Revoke the first token from the list, found by its id: two rows written moments apart are not
    // ordered by created_at when the clock steps back between them (CI once revoked the second).
    const tokenIds = await tokens.locator('tbody tr td:first-child code').allTextContents();
    expect(tokenIds).toContain(secondTokenId);
    const firstTokenId = tokenIds.find((id) => id !== secondTokenId)!;
    await tokens.getByRole('button', { name: `Revoke token ${firstTokenId}`, exact: true }).click();
    expect((await asPublisher(firstToken)).status).toBe(200);
    await tokens.getByRole('group', { name: `Revoke token ${firstTokenId}`, exact: true }).getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => tokens.getByText('revoked').count()).toBe(1);
    // The focus goes to the next row's Revoke, or to the list's heading when the revoked row was the last.
    const focusAfter = tokenIds.indexOf(firstTokenId) < tokenIds.indexOf(secondTokenId) ? `Revoke token ${secondTokenId}` : 'Tokens';
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent)).toBe(focusAfter);
    expect((await asPublisher(firstToken)).status).toBe(401);
    const placements = await (await asPublisher(secondToken)).json();
    expect(placements.data.map((placement: { id: string }) => placement.id)).toEqual([placementId]);

    await placementRow.getByRole('link', { name: placementId }).click();
    await expect.poll(() => page.getByTestId('certification').textContent()).toBe('uncertified');
    await page.getByLabel('Reason').fill('checked the chat page by hand');
    await page.getByRole('button', { name: 'Certify' }).click();
    await expect.poll(() => page.getByTestId('certification').textContent()).toBe('certified');
    await page.getByRole('table', { name: 'Certification history' }).getByRole('cell', { name: 'checked the chat page by hand' }).waitFor();
    expect(await certification(placementId)).toBe('certified');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
