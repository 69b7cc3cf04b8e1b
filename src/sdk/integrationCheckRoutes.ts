import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { FeatureDeps } from '../featureDeps.js';
import { placementIdParam } from '../placements/placementSchemas.js';
import { findPlacement, type Placement } from '../placements/placementRepository.js';
import { findPublisherByToken } from '../placements/publisherRepository.js';
import { requireAdminToken } from '../http/adminAuth.js';
import { bearerToken } from '../http/bearerToken.js';
import { ApiError, parsePathParams } from '../http/errors.js';
import { boundedInteger, parseQuery, queryParams } from '../http/queryParams.js';
import { forgedImpressions, publisherView, recentImpressions, summarizeImpressions } from './recentImpressions.js';

const checkQuery = queryParams({
  limit: boundedInteger(1, 500).default(50),
  hours: boundedInteger(1, 168).default(24),
});

/**
 * The integration check: a placement's recent impressions with where each pixel came from, so a
 * publisher (with its own token, before asking for certification) and an operator (before approving
 * it) can see that pixels fire from browsers and not from servers.
 */
export async function integrationCheckRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  const { db, ch } = deps;

  /** `asPublisher`: the publisher's own view, naming only the reasons it can fix (publisherView). */
  async function answer(placement: Placement, { limit, hours }: z.output<typeof checkQuery>, asPublisher: boolean) {
    const to = Date.now();
    const from = to - hours * 3_600_000;
    const [listed, forged] = await Promise.all([recentImpressions(ch, placement.id, from, limit), forgedImpressions(ch, placement.id, from)]);
    const impressions = asPublisher ? publisherView(listed) : listed;
    return {
      data: {
        placement: { id: placement.id, certification: placement.certification },
        window: { hours, from: new Date(from).toISOString(), to: new Date(to).toISOString() },
        summary: summarizeImpressions(impressions, forged),
        impressions,
      },
    };
  }

  app.get('/v1/publisher/placements/:id/recent-impressions', { config: { query: 'parsed' } }, async (request) => {
    const publisherId = await findPublisherByToken(db, bearerToken(request));
    if (!publisherId) throw new ApiError('auth_invalid', 'publisher token is invalid');
    const { id } = parsePathParams(placementIdParam, request.params, 'placement');
    const query = parseQuery(checkQuery, request.query);
    const placement = await findPlacement(db, id);
    // Another publisher's placement answers like a missing one.
    if (!placement || placement.publisher_id !== publisherId) throw new ApiError('not_found', 'placement not found');
    return answer(placement, query, true);
  });

  app.get(
    '/v1/admin/placements/:id/recent-impressions',
    { onRequest: requireAdminToken(deps.secrets.adminToken), config: { query: 'parsed' } },
    async (request) => {
      const { id } = parsePathParams(placementIdParam, request.params, 'placement');
      const query = parseQuery(checkQuery, request.query);
      const placement = await findPlacement(db, id);
      if (!placement) throw new ApiError('not_found', 'placement not found');
      return answer(placement, query, false);
    },
  );
}
