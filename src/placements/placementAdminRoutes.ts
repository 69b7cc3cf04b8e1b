import type { FastifyInstance } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { ApiError, parseBody, parseInput, parseNoBody, parsePathParams } from '../http/errors.js';
import { requireAdminToken } from '../http/adminAuth.js';
import {
  certificationBody,
  createPlacementBody,
  createPublisherBody,
  placementIdParam,
  placementListQuery,
  publisherIdParam,
  publisherTokenIdParam,
} from './placementSchemas.js';
import { createPublisher, findPublisher, issuePublisherToken, publisherExists, revokePublisherToken } from './publisherRepository.js';
import { keysetPage, uuidPageQuery } from '../http/keysetPaging.js';
import { parseQuery } from '../http/queryParams.js';
import { createOnce } from '../http/createOnce.js';
import { operatorCreateKeys } from '../admin/operatorCreateKeys.js';
import { listPublisherPlacements, listPublishers, listPublisherTokens } from './publisherLists.js';
import { revenueShareOf } from '../reporting/revenueShares.js';
import { changeCertification, createPlacement, findPlacement, PlacementExistsError } from './placementRepository.js';

export interface PlacementAdminDeps {
  db: Postgres;
  adminToken: string;
  /** Called after a certification changed, so this instance serves the change from the next request. */
  onCertificationChanged(): Promise<void>;
}

/** The operators' side of publishers and placements (Bearer admin token): tokens, placements, certify and revoke. */
export async function placementAdminRoutes(app: FastifyInstance, { db, adminToken, onCertificationChanged }: PlacementAdminDeps): Promise<void> {
  app.addHook('onRequest', requireAdminToken(adminToken));
  const keys = operatorCreateKeys(adminToken);

  app.get('/v1/admin/publishers', { config: { query: 'parsed' } }, async (request) => {
    const page = parseQuery(uuidPageQuery, request.query);
    return keysetPage(await listPublishers(db, page), page);
  });

  app.get('/v1/admin/publishers/:publisher_id', async (request) => {
    const { publisher_id } = parsePathParams(publisherIdParam, request.params, 'publisher');
    const publisher = await findPublisher(db, publisher_id);
    if (!publisher) throw new ApiError('not_found', 'publisher not found');
    return { data: { ...publisher, revenue_share: (await revenueShareOf(db, publisher_id)).current.revenue_share } };
  });

  app.get('/v1/admin/publishers/:publisher_id/tokens', { config: { query: 'parsed' } }, async (request) => {
    const { publisher_id } = parsePathParams(publisherIdParam, request.params, 'publisher');
    const page = parseQuery(uuidPageQuery, request.query);
    if (!(await publisherExists(db, publisher_id))) throw new ApiError('not_found', 'publisher not found');
    return keysetPage(await listPublisherTokens(db, publisher_id, page), page);
  });

  app.get('/v1/admin/publishers/:publisher_id/placements', { config: { query: 'parsed' } }, async (request) => {
    const { publisher_id } = parsePathParams(publisherIdParam, request.params, 'publisher');
    const page = parseQuery(placementListQuery, request.query);
    if (!(await publisherExists(db, publisher_id))) throw new ApiError('not_found', 'publisher not found');
    return keysetPage(await listPublisherPlacements(db, publisher_id, page), page);
  });

  app.post('/v1/admin/publishers', async (request, reply) => {
    const { name } = parseBody(createPublisherBody, request.body);
    return createOnce(db, keys, request, reply, (tx) => createPublisher(tx, name));
  });

  app.post('/v1/admin/publishers/:publisher_id/tokens', async (request, reply) => {
    const { publisher_id } = parsePathParams(publisherIdParam, request.params, 'publisher');
    parseNoBody(request.body);
    return createOnce(db, keys, request, reply, async (tx) => {
      if (!(await publisherExists(tx, publisher_id))) throw new ApiError('not_found', 'publisher not found');
      return issuePublisherToken(tx, publisher_id);
    });
  });

  app.delete('/v1/admin/publisher-tokens/:id', async (request, reply) => {
    const { id } = parsePathParams(publisherTokenIdParam, request.params, 'publisher token');
    if (!(await revokePublisherToken(db, id))) throw new ApiError('not_found', 'publisher token not found');
    return reply.code(204).send();
  });

  app.post('/v1/admin/publishers/:publisher_id/placements', async (request, reply) => {
    const { publisher_id } = parsePathParams(publisherIdParam, request.params, 'publisher');
    const { id, name } = parseBody(createPlacementBody, request.body);
    try {
      return await createOnce(db, keys, request, reply, async (tx) => {
        if (!(await publisherExists(tx, publisher_id))) throw new ApiError('not_found', 'publisher not found');
        return createPlacement(tx, publisher_id, id, name);
      });
    } catch (error) {
      if (error instanceof PlacementExistsError) throw new ApiError('conflict', error.message);
      throw error;
    }
  });

  app.get('/v1/admin/placements/:id', async (request) => {
    const { id } = parsePathParams(placementIdParam, request.params, 'placement');
    const placement = await findPlacement(db, id);
    if (!placement) throw new ApiError('not_found', 'placement not found');
    return { data: placement };
  });

  app.post('/v1/admin/placements/:id/certify', async (request) => {
    const { id } = parsePathParams(placementIdParam, request.params, 'placement');
    const { reason } = parseInput(certificationBody, request.body);
    const placement = await changeCertification(db, id, 'certified', 'operator', reason ?? 'certified by operator');
    if (!placement) throw new ApiError('not_found', 'placement not found');
    await onCertificationChanged();
    return { data: placement };
  });

  app.post('/v1/admin/placements/:id/revoke', async (request) => {
    const { id } = parsePathParams(placementIdParam, request.params, 'placement');
    const { reason } = parseInput(certificationBody, request.body);
    const placement = await changeCertification(db, id, 'revoked', 'operator', reason ?? 'revoked by operator', ['certified']);
    if (!placement) throw new ApiError('not_found', 'placement not found');
    await onCertificationChanged();
    return { data: placement };
  });
}
