import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { advertiserOf, requireApiKey } from '../http/apiKeyAuth.js';
import { parseBody, parsePathParams } from '../http/errors.js';
import { createOnce } from '../http/createOnce.js';
import { organizationCreateKeys } from './organizationCreateKeys.js';
import { attachCreativesBody } from './creativeSchema.js';
import { idParam } from './fieldSchemas.js';
import { bidsBody, budgetBody, lineItemPatch } from './lineItemSchemas.js';
import { attachCreatives, getLineItem, patchLineItem, putBids, putBudget, putTargeting } from './lineItemService.js';
import { targetingSchema } from './targetingSchema.js';
import { withDeliveryState } from './deliveryState.js';

export async function lineItemRoutes(app: FastifyInstance, { db, indexedDestinations }: FeatureDeps): Promise<void> {
  const shown = withDeliveryState(indexedDestinations);
  const read = { onRequest: requireApiKey(db, ['campaigns', 'reporting']) };
  const write = { onRequest: requireApiKey(db, ['campaigns']) };
  const lineItemId = (params: unknown) => parsePathParams(idParam, params, 'line item').id;

  app.get('/v1/advertiser/line-items/:id', read, async (request) => {
    const id = lineItemId(request.params);
    return { data: shown(await getLineItem(db, advertiserOf(request).organizationId, id)) };
  });

  app.patch('/v1/advertiser/line-items/:id', write, async (request) => {
    const id = lineItemId(request.params);
    const patch = parseBody(lineItemPatch, request.body);
    return { data: shown(await patchLineItem(db, advertiserOf(request).organizationId, id, patch)) };
  });

  app.put('/v1/advertiser/line-items/:id/budget', write, async (request) => {
    const id = lineItemId(request.params);
    const budget = parseBody(budgetBody, request.body);
    return { data: shown(await putBudget(db, advertiserOf(request).organizationId, id, budget)) };
  });

  app.put('/v1/advertiser/line-items/:id/bids', write, async (request) => {
    const id = lineItemId(request.params);
    const bids = parseBody(bidsBody, request.body);
    return { data: shown(await putBids(db, advertiserOf(request).organizationId, id, bids)) };
  });

  app.put('/v1/advertiser/line-items/:id/targeting', write, async (request) => {
    const id = lineItemId(request.params);
    const targeting = parseBody(targetingSchema, request.body);
    return { data: shown(await putTargeting(db, advertiserOf(request).organizationId, id, targeting)) };
  });

  app.post('/v1/advertiser/line-items/:id/creatives', write, async (request, reply) => {
    const id = lineItemId(request.params);
    const { creatives } = parseBody(attachCreativesBody, request.body);
    return createOnce(db, organizationCreateKeys(request), request, reply, (tx) => attachCreatives(tx, advertiserOf(request).organizationId, id, creatives));
  });
}
