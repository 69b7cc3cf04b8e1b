import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { advertiserOf, permissions, requireApiKey } from '../http/apiKeyAuth.js';
import { ApiError } from '../http/errors.js';
import { findOrganization } from '../admin/tenancyRepository.js';

/**
 * GET /v1/advertiser/me: the caller's organization and what its key may do, so that a client (the
 * console) offers only the actions the key holds instead of learning them from refusals. Any live
 * key may ask, whichever permission it carries.
 */
export async function advertiserMeRoute(app: FastifyInstance, { db }: FeatureDeps): Promise<void> {
  app.get('/v1/advertiser/me', { onRequest: requireApiKey(db, [...permissions]) }, async (request) => {
    const caller = advertiserOf(request);
    const organization = await findOrganization(db, caller.organizationId);
    // Deleted since the key was looked up: its keys went with it (ON DELETE CASCADE).
    if (!organization) throw new ApiError('auth_invalid', 'API key is invalid');
    return {
      data: {
        organization,
        // In the documented order, whatever order the key was created with.
        api_key: { id: caller.apiKeyId, permissions: permissions.filter((permission) => caller.permissions.includes(permission)) },
      },
    };
  });
}
