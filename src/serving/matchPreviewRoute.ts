import type { FastifyInstance } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { advertiserOf, requireApiKey } from '../http/apiKeyAuth.js';
import { parseBody, parsePathParams } from '../http/errors.js';
import { idParam } from '../management/fieldSchemas.js';
import { getLineItem } from '../management/lineItemService.js';
import type { AdIndex } from './adIndex.js';
import type { IndexedDestinations } from './indexedDestinations.js';
import { matchPreviewBody, previewMatch } from './matchPreview.js';

/**
 * POST /v1/advertiser/line-items/:id/match-preview: why the caller's line item would or would not
 * be served next to a conversation (matchPreview.ts). Registered by serving, whose ad index it
 * reads; the line item is looked up under the caller's organization first, so another
 * organization's is a 404 like any other route's.
 */
export function matchPreviewRoute(app: FastifyInstance, db: Postgres, currentIndex: () => AdIndex, indexed: Pick<IndexedDestinations, 'indexed'>): void {
  const read = { onRequest: requireApiKey(db, ['campaigns', 'reporting']) };
  app.post('/v1/advertiser/line-items/:id/match-preview', read, async (request) => {
    const { id } = parsePathParams(idParam, request.params, 'line item');
    const body = parseBody(matchPreviewBody, request.body);
    const lineItem = await getLineItem(db, advertiserOf(request).organizationId, id);
    const nowMs = Date.now();
    return { data: previewMatch(currentIndex(), indexed.indexed(id, nowMs), lineItem, body, nowMs) };
  });
}
