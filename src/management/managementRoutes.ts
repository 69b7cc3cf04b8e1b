import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { runSoonAfterListening, startPeriodicTask } from '../periodicTask.js';
import { advertiserMeRoute } from './advertiserMeRoute.js';
import { campaignRoutes } from './campaignRoutes.js';
import { pruneIdempotentCreates } from './organizationCreateKeys.js';
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
  // Every instance prunes; the DELETE finds nothing when another one just did.
  const prune = startPeriodicTask('idempotency keys prune', IDEMPOTENT_CREATES_PRUNE_MS, () => pruneIdempotentCreates(deps.db), app.log);
  runSoonAfterListening(app, prune, FIRST_PRUNE_AFTER_LISTEN_MS);
  app.addHook('onClose', () => prune.stop());
}

/** Keys are kept 24 h (src/http/createOnce.ts); an expired one is freed when sent again, so an hour's lag only keeps rows. */
const IDEMPOTENT_CREATES_PRUNE_MS = 60 * 60 * 1000;
/** And once soon after the start (runSoonAfterListening), after the embedded statistics' first run at 1 s. */
const FIRST_PRUNE_AFTER_LISTEN_MS = 5_000;
