import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { startPeriodicTask } from '../periodicTask.js';
import { placementAdminRoutes } from './placementAdminRoutes.js';
import { integrationReviewAdminRoutes } from './integrationReviewAdminRoutes.js';
import { publisherRoutes } from './publisherRoutes.js';
import { judgeServerSideTraffic } from './autoRevocation.js';

/**
 * Publishers, placements and their certification: the operators' routes, the publishers' own
 * routes, integration reviews and auto-revocation. Every certification change, whoever makes it,
 * refreshes the serving index through deps.servingIndex.
 */
export async function placementsRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  const { config, db, ch, secrets, servingIndex } = deps;
  const log = app.log;
  const onCertificationChanged = () => servingIndex.refreshNow();
  // Each plugin is its own fastify context: serving decorates its requests, this does the same for the publisher routes.
  app.decorateRequest('publisherId', null);

  await app.register(placementAdminRoutes, { db, adminToken: secrets.adminToken, onCertificationChanged });
  await app.register(integrationReviewAdminRoutes, { db, adminToken: secrets.adminToken, onCertificationChanged });
  await app.register(publisherRoutes, { db, serveUrl: `${config.SERVE_BASE_URL}/v1/serve` });

  const autoRevocation = startPeriodicTask(
    'auto-revocation',
    config.AUTO_REVOCATION_INTERVAL_MS,
    async () => {
      const { revoked, flagged } = await judgeServerSideTraffic(db, ch, config);
      // At every check while it holds (and from every instance): what an operator's log alert picks up.
      for (const flag of flagged) log.warn(flag, 'placement flagged for review: server-side impression traffic, not enough to revoke');
      if (revoked.length === 0) return;
      log.warn({ placements: revoked }, 'revoked certification: server-side impression traffic');
      await onCertificationChanged();
    },
    log,
  );
  app.addHook('onClose', () => autoRevocation.stop());
}
