import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { pruneCreateKeysPeriodically } from '../http/createKeyTable.js';
import { advertiserMeRoute } from './advertiserMeRoute.js';
import { campaignRoutes } from './campaignRoutes.js';
import { organizationCreateKeyTable } from './organizationCreateKeys.js';
import { lineItemRoutes } from './lineItemRoutes.js';
import { memberRoutes } from './memberRoutes.js';

/**
 * The advertiser Management API under /v1/advertiser: campaigns, their line items, the
 * organization's members (a campaign's possible owners) and the caller itself (me). Reads take a key
 * with the campaigns or reporting permission, the members list and writes need campaigns. Every
 * route is scoped to the key's organization.
 */
export async function managementRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  await campaignRoutes(app, deps);
  await lineItemRoutes(app, deps);
  await memberRoutes(app, deps);
  await advertiserMeRoute(app, deps);
  pruneCreateKeysPeriodically(app, deps.db, organizationCreateKeyTable);
}
