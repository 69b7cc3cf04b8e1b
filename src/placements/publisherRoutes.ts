import type { FastifyInstance } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { parseInput } from '../http/errors.js';
import { parseQuery } from '../http/queryParams.js';
import { publisherOf, requirePublisherToken } from './publisherAuth.js';
import { createReviewBody, listReviewsQuery } from './integrationReviewSchemas.js';
import { listPublisherPlacements } from './publisherPlacementRepository.js';
import { findPublisher } from './publisherRepository.js';
import { ApiError } from '../http/errors.js';
import { listReviews } from './integrationReviewRepository.js';
import { requestReview } from './integrationReviews.js';

/** The publisher's own view (Bearer publisher token): who it is, its placements and its integration reviews. */
export async function publisherRoutes(app: FastifyInstance, { db, serveUrl }: { db: Postgres; serveUrl: string }): Promise<void> {
  app.addHook('onRequest', requirePublisherToken(db));

  // Who the token belongs to, as GET /v1/advertiser/me answers for a key: the console names the
  // publisher in its header, which no other publisher route answers. With it, where its backend
  // asks for ads: the serve route as the operator set it up (SERVE_BASE_URL), not as the caller
  // reached this route (the console and the serve API often live at different hosts).
  app.get('/v1/publisher/me', async (request) => {
    const publisher = await findPublisher(db, publisherOf(request));
    // Publishers are never deleted; a token whose publisher is gone is no token.
    if (!publisher) throw new ApiError('auth_invalid', 'publisher token is invalid');
    return { data: { publisher, serve_url: serveUrl } };
  });

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
