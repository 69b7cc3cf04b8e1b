import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { advertiserOf, requireApiKey } from '../http/apiKeyAuth.js';
import { ApiError, parseBody, parseInput, parsePathParams } from '../http/errors.js';
import { parseQuery } from '../http/queryParams.js';
import {
  activateBody,
  campaignInput,
  campaignListQuery,
  campaignPatch,
  composeBody,
  duplicateBody,
  validateBody,
} from './campaignSchemas.js';
import {
  activateCampaign,
  composeCampaign,
  createCampaign,
  duplicateCampaign,
  getCampaign,
  listCampaignPage,
  patchCampaign,
  removeCampaign,
  validateCampaign,
} from './campaignService.js';
import { createOnce } from '../http/createOnce.js';
import { organizationCreateKeys } from './organizationCreateKeys.js';
import { idParam } from './fieldSchemas.js';
import { createLineItem, listCampaignLineItems } from './lineItemService.js';
import { withDeliveryState } from './deliveryState.js';
import { lineItemInput } from './lineItemSchemas.js';

export async function campaignRoutes(app: FastifyInstance, { db, indexedDestinations }: FeatureDeps): Promise<void> {
  const shown = withDeliveryState(indexedDestinations);
  const shownWithLineItems = <T extends { line_items: { id: string }[] }>(result: T) => ({ ...result, line_items: result.line_items.map(shown) });
  const read = { onRequest: requireApiKey(db, ['campaigns', 'reporting']) };
  const write = { onRequest: requireApiKey(db, ['campaigns']) };
  const campaignId = (params: unknown) => parsePathParams(idParam, params, 'campaign').id;

  app.get('/v1/advertiser/campaigns', { ...read, config: { query: 'parsed' } }, async (request, reply) => {
    const query = parseQuery(campaignListQuery, request.query);
    // Already JSON text (see listCampaigns): sent as it is.
    return reply.type('application/json; charset=utf-8').send(await listCampaignPage(db, advertiserOf(request).organizationId, query));
  });

  app.post('/v1/advertiser/campaigns', write, async (request, reply) => {
    const input = parseBody(campaignInput, request.body);
    return createOnce(db, organizationCreateKeys(request), request, reply, (tx) => createCampaign(tx, advertiserOf(request).organizationId, input));
  });

  app.post('/v1/advertiser/campaigns/validate', write, async (request) => {
    const input = parseBody(validateBody, request.body);
    return { data: await validateCampaign(db, advertiserOf(request).organizationId, input) };
  });

  app.post('/v1/advertiser/campaigns/compose', write, async (request, reply) => {
    const input = parseBody(composeBody, request.body);
    return createOnce(db, organizationCreateKeys(request), request, reply, (tx) => composeCampaign(tx, advertiserOf(request).organizationId, input));
  });

  app.get('/v1/advertiser/campaigns/:id', read, async (request) => {
    const id = campaignId(request.params);
    return { data: await getCampaign(db, advertiserOf(request).organizationId, id) };
  });

  app.patch('/v1/advertiser/campaigns/:id', write, async (request) => {
    const id = campaignId(request.params);
    const patch = parseBody(campaignPatch, request.body);
    return { data: await patchCampaign(db, advertiserOf(request).organizationId, id, patch) };
  });

  app.delete('/v1/advertiser/campaigns/:id', write, async (request, reply) => {
    const id = campaignId(request.params);
    await removeCampaign(db, advertiserOf(request).organizationId, id);
    return reply.code(204).send();
  });

  app.post('/v1/advertiser/campaigns/:id/duplicate', write, async (request, reply) => {
    const id = campaignId(request.params);
    const { name } = parseInput(duplicateBody, request.body);
    return createOnce(db, organizationCreateKeys(request), request, reply, async (tx) => shownWithLineItems(await duplicateCampaign(tx, advertiserOf(request).organizationId, id, name)));
  });

  app.post('/v1/advertiser/campaigns/:id/activate', write, async (request) => {
    const id = campaignId(request.params);
    const options = parseInput(activateBody, request.body);
    return { data: shownWithLineItems(await activateCampaign(db, advertiserOf(request).organizationId, id, options)) };
  });

  app.get('/v1/advertiser/campaigns/:id/line-items', read, async (request) => {
    const id = campaignId(request.params);
    return { data: (await listCampaignLineItems(db, advertiserOf(request).organizationId, id)).map(shown) };
  });

  app.post('/v1/advertiser/campaigns/:id/line-items', write, async (request, reply) => {
    const id = campaignId(request.params);
    const input = parseBody(lineItemInput, request.body);
    return createOnce(db, organizationCreateKeys(request), request, reply, async (tx) => shown(await createLineItem(tx, advertiserOf(request).organizationId, id, input)));
  });
}
