import type { FastifyInstance } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { parseInput } from '../http/errors.js';
import { parseQuery } from '../http/queryParams.js';
import { publisherOf, requirePublisherToken } from './publisherAuth.js';
import { createReviewBody, listReviewsQuery } from './integrationReviewSchemas.js';
import { listPublisherPlacements } from './publisherPlacementRepository.js';
import { listReviews } from './integrationReviewRepository.js';
import { requestReview } from './integrationReviews.js';

/** The publisher's own view (Bearer publisher token): its placements and its integration reviews. */
export async function publisherRoutes(app: FastifyInstance, { db }: { db: Postgres }): Promise<void> {
  app.addHook('onRequest', requirePublisherToken(db));

  app.get('/v1/publisher/placements', async (request) => {
    return { data: await listPublisherPlacements(db, publisherOf(request)) };
  });

  app.post('/v1/publisher/integration-reviews', async (request, reply) => {
    const { placement_ids, note } = parseInput(createReviewBody, request.body);
    return reply.code(201).send({ data: await requestReview(db, publisherOf(request), placement_ids, note) });
  });

  app.get('/v1/publisher/integration-reviews', { config: { query: 'parsed' } }, async (request) => {
    const { status, limit, offset } = parseQuery(listReviewsQuery, request.query);
    return { data: await listReviews(db, { publisherId: publisherOf(request), status, limit, offset, newestFirst: true }) };
  });
}
