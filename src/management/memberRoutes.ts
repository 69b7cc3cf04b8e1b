import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { advertiserOf, requireApiKey } from '../http/apiKeyAuth.js';
import { keysetPage, uuidPageQuery } from '../http/keysetPaging.js';
import { parseQuery } from '../http/queryParams.js';
import { listMembers } from '../admin/tenancyLists.js';

/**
 * GET /v1/advertiser/users: the members of the key's organization, in the order they joined, so
 * that a campaign's owner (`user_id`, which must be a member) can be chosen by email rather than
 * asked of the operator. A key with the campaigns permission, the one that creates campaigns;
 * the same rows and paging as the operators' list of an organization's users.
 */
export async function memberRoutes(app: FastifyInstance, { db }: FeatureDeps): Promise<void> {
  app.get('/v1/advertiser/users', { onRequest: requireApiKey(db, ['campaigns']), config: { query: 'parsed' } }, async (request) => {
    const page = parseQuery(uuidPageQuery, request.query);
    return keysetPage(await listMembers(db, advertiserOf(request).organizationId, page), page);
  });
}
