import type { FastifyInstance } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { parseBody, parseInput, parsePathParams } from '../http/errors.js';
import { parseQuery } from '../http/queryParams.js';
import { requireAdminToken } from '../http/adminAuth.js';
import { approveReviewBody, listReviewsQuery, rejectReviewBody, reviewIdParam } from './integrationReviewSchemas.js';
import { listReviews } from './integrationReviewRepository.js';
import { approveReview, rejectReview } from './integrationReviews.js';

export interface IntegrationReviewAdminDeps {
  db: Postgres;
  adminToken: string;
  /** Called after placements were certified, so this instance serves the change from the next request. */
  onCertificationChanged(): Promise<void>;
}

/** The operators' side of integration reviews (Bearer admin token): the queue, approve, reject. */
export async function integrationReviewAdminRoutes(app: FastifyInstance, { db, adminToken, onCertificationChanged }: IntegrationReviewAdminDeps): Promise<void> {
  app.addHook('onRequest', requireAdminToken(adminToken));

  app.get('/v1/admin/integration-reviews', { config: { query: 'parsed' } }, async (request) => {
    const { status, limit, offset } = parseQuery(listReviewsQuery, request.query);
    // Oldest first: the queue order in which reviews should be handled.
    return { data: await listReviews(db, { status, limit, offset, newestFirst: false }) };
  });

  app.post('/v1/admin/integration-reviews/:id/approve', async (request) => {
    const { id } = parsePathParams(reviewIdParam, request.params, 'integration review');
    const { reason } = parseInput(approveReviewBody, request.body);
    const review = await approveReview(db, id, reason);
    await onCertificationChanged();
    return { data: review };
  });

  app.post('/v1/admin/integration-reviews/:id/reject', async (request) => {
    const { id } = parsePathParams(reviewIdParam, request.params, 'integration review');
    const { reason } = parseBody(rejectReviewBody, request.body);
    return { data: await rejectReview(db, id, reason) };
  });
}
