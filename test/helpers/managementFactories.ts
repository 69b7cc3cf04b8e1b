import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TestContext } from './testApp.js';

/** Factories over the Management API, for tests that need campaigns and line items to exist. */

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** app.inject with an advertiser key. */
export function asAdvertiser(ctx: TestContext, key: string) {
  return (method: Method, url: string, payload?: InjectOptions['payload']): Promise<LightMyRequestResponse> =>
    ctx.app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload }) });
}

export const validCreative = {
  format: 'contextual_card',
  title: 'Fast laptops for developers',
  body: 'Compile in seconds. Free shipping this week.',
  cta: 'Shop now',
  destination_url: 'https://shop.example.com/laptops',
};

export function composeBody(userId: string, overrides: { campaign?: object; line_item?: object } = {}) {
  return {
    campaign: { name: 'Spring launch', brand_name: 'Acme', user_id: userId, objective: 'brand_awareness', ...overrides.campaign },
    line_item: {
      title: 'Developers, US',
      objective: 'traffic',
      primary_kpi: 'clicks',
      budget: { daily: 50, currency: 'USD' },
      bids: { bid_type: 'cpc', bid_value: 1.25 },
      ...overrides.line_item,
    },
  };
}

export async function createCampaign(ctx: TestContext, key: string, userId: string, body: object = {}) {
  const response = await asAdvertiser(ctx, key)('POST', '/v1/advertiser/campaigns', {
    name: 'Campaign',
    brand_name: 'Acme',
    user_id: userId,
    ...body,
  });
  if (response.statusCode !== 201) throw new Error(`create campaign: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; name: string; status: string; user_id: string };
}

/** A campaign with one line item (budget and bids set), via compose; returns both ids. */
export async function composeCampaign(ctx: TestContext, key: string, userId: string, overrides: Parameters<typeof composeBody>[1] = {}) {
  const response = await asAdvertiser(ctx, key)('POST', '/v1/advertiser/campaigns/compose', composeBody(userId, overrides));
  if (response.statusCode !== 201) throw new Error(`compose: ${response.statusCode} ${response.body}`);
  const data = response.json().data as { campaign: { id: string }; line_item: { id: string } };
  return { campaignId: data.campaign.id, lineItemId: data.line_item.id };
}
