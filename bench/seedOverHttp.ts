import { randomBytes } from 'node:crypto';
import type { GeneratedCampaign } from './catalogGenerator.js';
import { requestJson } from './httpJson.js';
import type { BenchPlacement, BenchTenancy } from './seedTenancy.js';

/** Parallel management calls while seeding a running service; its database serializes them anyway. */
const CONCURRENCY = 8;

async function expectCreated<Data>(what: string, call: Promise<{ status: number; body: unknown }>): Promise<Data> {
  const answer = await call;
  if (answer.status !== 200 && answer.status !== 201) {
    throw new Error(`seeding: ${what} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
  return (answer.body as { data: Data }).data;
}

/** The same tenancy as seedTenancy, through the admin API of the service at baseUrl. */
export async function seedTenancyOverHttp(baseUrl: string, adminToken: string, placements: number, certified: number): Promise<BenchTenancy> {
  const admin = { authorization: `Bearer ${adminToken}` };
  const post = <Data>(path: string, body: unknown) => expectCreated<Data>(`POST ${path}`, requestJson('POST', baseUrl + path, { headers: admin, body }));
  const runId = randomBytes(4).toString('hex');
  const organization = await post<{ id: string }>('/v1/admin/organizations', { name: `bench ${runId}` });
  const user = await post<{ id: string }>(`/v1/admin/organizations/${organization.id}/users`, { email: `bench-${runId}@example.com` });
  const key = await post<{ key: string }>(`/v1/admin/organizations/${organization.id}/api-keys`, { permissions: ['campaigns', 'reporting'] });
  const publisher = await post<{ id: string; token: string }>('/v1/admin/publishers', { name: `bench publisher ${runId}` });
  const made: BenchPlacement[] = [];
  for (let index = 0; index < placements; index++) {
    const id = `bench-${runId}-chat-${String(index).padStart(3, '0')}`;
    await post(`/v1/admin/publishers/${publisher.id}/placements`, { id, name: `bench chat surface ${index}` });
    if (index < certified) await post(`/v1/admin/placements/${id}/certify`, { reason: 'integration review approved (bench seed)' });
    made.push({ id, certified: index < certified });
  }
  return {
    runId,
    organizationId: organization.id,
    userId: user.id,
    apiKey: key.key,
    publisherId: publisher.id,
    publisherToken: publisher.token,
    placements: made,
  };
}

/**
 * The generated catalog through the management API: create each campaign, add its line items
 * (targeting and creatives in the same body), activate it when asked. The ids the service assigns
 * replace the generated ones in `catalog`, so later steps (tracking tokens) name real rows.
 */
export async function seedCatalogOverHttp(
  baseUrl: string,
  tenancy: BenchTenancy,
  catalog: GeneratedCampaign[],
  status: 'active' | 'paused',
): Promise<void> {
  const headers = { 'x-api-key': tenancy.apiKey };
  const post = <Data>(path: string, body: unknown) => expectCreated<Data>(`POST ${path}`, requestJson('POST', baseUrl + path, { headers, body }));
  let next = 0;
  const worker = async () => {
    while (next < catalog.length) {
      const campaign = catalog[next++]!;
      const created = await post<{ id: string }>('/v1/advertiser/campaigns', { ...campaign.input, user_id: tenancy.userId });
      campaign.id = created.id;
      for (const lineItem of campaign.lineItems) {
        const made = await post<{ id: string; creatives: Array<{ id: string }> }>(`/v1/advertiser/campaigns/${created.id}/line-items`, lineItem.input);
        lineItem.id = made.id;
        lineItem.creativeIds = made.creatives.map((creative) => creative.id);
      }
      if (status === 'active' && campaign.lineItems.length > 0) await post(`/v1/advertiser/campaigns/${created.id}/activate`, {});
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}
