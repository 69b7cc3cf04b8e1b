import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { campaignRoutes } from './campaignRoutes.js';
import { lineItemRoutes } from './lineItemRoutes.js';

/**
 * The advertiser Management API under /v1/advertiser: campaigns and their line items. Reads take a
 * key with the campaigns or reporting permission; writes need campaigns. Every route is scoped to
 * the key's organization.
 */
export async function managementRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  await campaignRoutes(app, deps);
  await lineItemRoutes(app, deps);
}
