import { randomUUID } from 'node:crypto';
import { request } from 'undici';

/** What the demo publisher and the tests need to know about what was set up. */
export interface DemoSetup {
  adsvcUrl: string;
  publisherId: string;
  /** The publisher's bearer token: only the demo backend holds it, never the page. */
  publisherToken: string;
  placementId: string;
  /** The advertiser's key (campaigns and reporting), to read the report of the demo campaign. */
  advertiserKey: string;
  campaignId: string;
  lineItemId: string;
}

export interface DemoCreative {
  title: string;
  body: string;
  cta: string;
  destination_url: string;
  image_url?: string;
}

export interface SeedOptions {
  adsvcUrl: string;
  adminToken: string;
  creative: DemoCreative;
  /** Placement id to register; a fresh unique one by default. */
  placementId?: string;
}

/**
 * Sets up a whole demo tenant through the public APIs, the way an operator and an advertiser would:
 * admin API (organization, user, API key, publisher, placement), then the Management API (compose a
 * campaign with a CPC line item, target it at the demo placement, attach the creative, activate).
 * CPC demand is what an uncertified placement gets, so the demo serves without certification.
 */
export async function seedDemo({ adsvcUrl, adminToken, creative, placementId }: SeedOptions): Promise<DemoSetup> {
  const suffix = randomUUID().slice(0, 8);
  const admin = (method: 'POST' | 'GET', path: string, body?: unknown) => call(adsvcUrl, method, path, { authorization: `Bearer ${adminToken}` }, body);

  const organization = await admin('POST', '/v1/admin/organizations', { name: `Demo advertiser ${suffix}` });
  const user = await admin('POST', `/v1/admin/organizations/${organization.id}/users`, { email: `demo-${suffix}@example.com` });
  const apiKey = await admin('POST', `/v1/admin/organizations/${organization.id}/api-keys`, { permissions: ['campaigns', 'reporting'] });
  const publisher = await admin('POST', '/v1/admin/publishers', { name: `Demo chat publisher ${suffix}` });
  const placement = await admin('POST', `/v1/admin/publishers/${publisher.id}/placements`, {
    id: placementId ?? `demo-chat-${suffix}`,
    name: 'Demo chat: below the answer',
  });

  const advertiser = (method: 'POST' | 'PUT', path: string, body: unknown) => call(adsvcUrl, method, path, { 'x-api-key': apiKey.key }, body);
  const composed = await advertiser('POST', '/v1/advertiser/campaigns/compose', {
    campaign: { name: 'Demo: weekend hiking', brand_name: 'Trailhead Outfitters', user_id: user.id, objective: 'traffic' },
    line_item: {
      title: 'Demo CPC line item',
      objective: 'traffic',
      primary_kpi: 'clicks',
      budget: { daily: 100, currency: 'USD' },
      bids: { bid_type: 'cpc', bid_value: 0.5 },
    },
  });
  const lineItemId: string = composed.line_item.id;
  await advertiser('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { placements: { include: [placement.id] } });
  await advertiser('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, {
    creatives: [{ format: 'contextual_card', ...creative }],
  });
  await advertiser('POST', `/v1/advertiser/campaigns/${composed.campaign.id}/activate`, {});

  return {
    adsvcUrl,
    publisherId: publisher.id,
    publisherToken: publisher.token,
    placementId: placement.id,
    advertiserKey: apiKey.key,
    campaignId: composed.campaign.id,
    lineItemId,
  };
}

/** One JSON call; anything but a 2xx stops the seeding with the service's own error message. */
async function call(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await request(baseUrl + path, {
    method: method as 'GET',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`demo setup: ${method} ${path} answered ${response.statusCode}: ${text}`);
  return text === '' ? {} : JSON.parse(text).data;
}
