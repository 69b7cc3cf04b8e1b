import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
  consoleProblems,
  createPublisher,
  screenshots,
  seriousAccessibilityViolations,
  signIn,
  startConsoleService,
  type ConsoleService,
} from './consoleKit.js';

let service: ConsoleService;

beforeAll(async () => {
  if (skipBrowserTests) return;
  service = await startConsoleService();
});

afterAll(async () => {
  await service?.close();
});

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

describe.skipIf(skipBrowserTests)('console in Chromium: the operator', () => {
  it('signs in with the admin token, certifies a placement from the review queue, and revokes it with a reason', async () => {
    const publisher = await createPublisher(service, 'op-chat-1');
    await requestReview(publisher.token, publisher.placementId);

    const page = await signIn(service, 'an operator', service.adminToken);
    await page.getByRole('heading', { name: 'Integration reviews', level: 1 }).waitFor();
    const review = page.getByRole('listitem', { name: `Review of ${publisher.placementId}` });
    await review.waitFor();
    // The publisher's note is shown as text.
    await review.getByText('<script>alert(1)</script> see the chat page', { exact: false }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-review-queue');

    await review.getByLabel('Reason').fill('pixels fire from browsers');
    await review.getByRole('button', { name: 'Approve and certify' }).click();
    await page.getByText(`Approved: ${publisher.placementId} certified.`).waitFor();
    // Other tests share the queue on a PostgreSQL server: this review leaves it, whatever else waits.
    await review.waitFor({ state: 'detached' });
    expect(await certification(publisher.placementId)).toBe('certified');

    await page.getByRole('link', { name: 'Placements' }).click();
    await page.getByLabel('Placement id').fill(publisher.placementId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.getByTestId('certification').textContent()).toBe('certified');
    const history = page.getByRole('table', { name: 'Certification history' });
    await history.getByRole('cell', { name: 'pixels fire from browsers' }).waitFor();

    await page.getByLabel('Reason').fill('pixels now come from a server');
    await page.getByRole('button', { name: 'Revoke certification' }).click();
    await expect.poll(() => page.getByTestId('certification').textContent()).toBe('revoked');
    await history.getByRole('cell', { name: 'pixels now come from a server' }).waitFor();
    expect(await certification(publisher.placementId)).toBe('revoked');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-placement');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it('creates an organization, a user and an API key shown once, which then works; and revokes it', async () => {
    const page = await signIn(service, 'an operator', service.adminToken);
    await page.getByRole('link', { name: 'Organizations, users and keys' }).click();

    const orgForm = page.getByRole('form', { name: 'Create an organization' });
    await orgForm.getByLabel('Organization name').fill('Console Co');
    await orgForm.getByRole('button', { name: 'Create organization' }).click();
    const orgId = (await orgForm.getByTestId('organization-id').textContent())!;

    const userForm = page.getByRole('form', { name: 'Add a user' });
    await userForm.getByLabel('Organization id').fill(orgId);
    await userForm.getByLabel('Email').fill('not an email');
    await userForm.getByRole('button', { name: 'Add user' }).click();
    await expect.poll(() => userForm.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await userForm.getByLabel('Email').fill('owner@console.test');
    await userForm.getByRole('button', { name: 'Add user' }).click();
    await userForm.getByTestId('user-id').waitFor();

    const keyForm = page.getByRole('form', { name: 'Create an API key' });
    await keyForm.getByLabel('Organization id').fill(orgId);
    await keyForm.getByRole('button', { name: 'Create API key' }).click();
    const key = (await keyForm.locator('code.secret').textContent())!;
    const keyId = (await keyForm.getByText(/^API key /).textContent())!.match(/API key ([0-9a-f-]{36})/)![1]!;
    const asAdvertiser = () => fetch(`${service.url}/v1/advertiser/campaigns`, { headers: { 'x-api-key': key } }).then((response) => response.status);
    expect(await asAdvertiser()).toBe(200);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'operator-organizations');

    const revokeForm = page.getByRole('form', { name: 'Revoke an API key' });
    await revokeForm.getByLabel('API key id').fill(keyId);
    await revokeForm.getByRole('button', { name: 'Revoke API key' }).click();
    await revokeForm.getByText('Revoked').waitFor();
    expect(await asAdvertiser()).toBe(401);

    await page.getByRole('link', { name: 'Publishers and tokens' }).click();
    const publisherForm = page.getByRole('form', { name: 'Create a publisher' });
    await publisherForm.getByLabel('Publisher name').fill('Console Chat');
    await publisherForm.getByRole('button', { name: 'Create publisher' }).click();
    const publisherId = (await publisherForm.getByTestId('publisher-id').textContent())!;
    const token = (await publisherForm.locator('code.secret').textContent())!;
    const placementForm = page.getByRole('form', { name: 'Register a placement' });
    await placementForm.getByLabel('Publisher id').fill(publisherId);
    const placementId = `console-chat-${randomUUID().slice(0, 8)}`;
    await placementForm.getByLabel('Placement id').fill(placementId);
    await placementForm.getByRole('button', { name: 'Register placement' }).click();
    await placementForm.getByText('Registered placement').waitFor();
    // The token shown once is the publisher's, and sees the placement just registered.
    const placements = await fetch(`${service.url}/v1/publisher/placements`, { headers: { authorization: `Bearer ${token}` } }).then((response) => response.json());
    expect(placements.data.map((placement: { id: string }) => placement.id)).toEqual([placementId]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
