import type { FastifyInstance } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { ApiError, parseBody, parsePathParams } from '../http/errors.js';
import { requireAdminToken } from '../http/adminAuth.js';
import { keysetPage, uuidPageQuery } from '../http/keysetPaging.js';
import { parseQuery } from '../http/queryParams.js';
import { createOnce } from '../http/createOnce.js';
import { pruneCreateKeysPeriodically } from '../http/createKeyTable.js';
import { operatorCreateKeys, operatorCreateKeyTable } from './operatorCreateKeys.js';
import { addUserBody, createApiKeyBody, createOrganizationBody, orgIdParam, uuidParam } from './adminSchemas.js';
import { addMember, createApiKey, createOrganization, findOrganization, organizationExists, revokeApiKey } from './tenancyRepository.js';
import { listApiKeys, listMembers, listOrganizations } from './tenancyLists.js';

export interface AdminRoutesDeps {
  db: Postgres;
  adminToken: string;
}

/** The operators' API for tenancy: organizations, users and API keys (publishers and placements: src/placements). */
export async function adminRoutes(app: FastifyInstance, { db, adminToken }: AdminRoutesDeps): Promise<void> {
  app.addHook('onRequest', requireAdminToken(adminToken));
  const keys = operatorCreateKeys(adminToken);
  // The operators' keys of every admin create (placementAdminRoutes' too).
  pruneCreateKeysPeriodically(app, db, operatorCreateKeyTable);

  app.get('/v1/admin/organizations', { config: { query: 'parsed' } }, async (request) => {
    const page = parseQuery(uuidPageQuery, request.query);
    return keysetPage(await listOrganizations(db, page), page);
  });

  app.get('/v1/admin/organizations/:org_id', async (request) => {
    const { org_id } = parsePathParams(orgIdParam, request.params, 'organization');
    const organization = await findOrganization(db, org_id);
    if (!organization) throw new ApiError('not_found', 'organization not found');
    return { data: organization };
  });

  app.get('/v1/admin/organizations/:org_id/users', { config: { query: 'parsed' } }, async (request) => {
    const { org_id } = parsePathParams(orgIdParam, request.params, 'organization');
    const page = parseQuery(uuidPageQuery, request.query);
    if (!(await organizationExists(db, org_id))) throw new ApiError('not_found', 'organization not found');
    return keysetPage(await listMembers(db, org_id, page), page);
  });

  app.get('/v1/admin/organizations/:org_id/api-keys', { config: { query: 'parsed' } }, async (request) => {
    const { org_id } = parsePathParams(orgIdParam, request.params, 'organization');
    const page = parseQuery(uuidPageQuery, request.query);
    if (!(await organizationExists(db, org_id))) throw new ApiError('not_found', 'organization not found');
    return keysetPage(await listApiKeys(db, org_id, page), page);
  });

  app.post('/v1/admin/organizations', async (request, reply) => {
    const { name } = parseBody(createOrganizationBody, request.body);
    return createOnce(db, keys, request, reply, (tx) => createOrganization(tx, name));
  });

  app.post('/v1/admin/organizations/:org_id/users', async (request, reply) => {
    const { org_id } = parsePathParams(orgIdParam, request.params, 'organization');
    const { email } = parseBody(addUserBody, request.body);
    if (!(await organizationExists(db, org_id))) throw new ApiError('not_found', 'organization not found');
    return reply.code(201).send({ data: await addMember(db, org_id, email) });
  });

  app.post('/v1/admin/organizations/:org_id/api-keys', async (request, reply) => {
    const { org_id } = parsePathParams(orgIdParam, request.params, 'organization');
    const { permissions } = parseBody(createApiKeyBody, request.body);
    return createOnce(db, keys, request, reply, async (tx) => {
      if (!(await organizationExists(tx, org_id))) throw new ApiError('not_found', 'organization not found');
      return createApiKey(tx, org_id, permissions);
    });
  });

  app.delete('/v1/admin/api-keys/:id', async (request, reply) => {
    const { id } = parsePathParams(uuidParam, request.params, 'API key');
    if (!(await revokeApiKey(db, id))) throw new ApiError('not_found', 'API key not found');
    return reply.code(204).send();
  });
}
