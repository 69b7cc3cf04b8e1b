import { z } from 'zod';
import { permissions } from '../http/apiKeyAuth.js';
import { textLine } from '../management/fieldSchemas.js';

export const uuidParam = z.object({ id: z.uuid() });
export const orgIdParam = z.object({ org_id: z.uuid() });

export const createOrganizationBody = z.strictObject({ name: textLine(200) });
export const addUserBody = z.strictObject({ email: z.email().max(320).transform((email) => email.toLowerCase()) });
export const createApiKeyBody = z.strictObject({
  permissions: z.array(z.enum(permissions)).min(1).transform((list) => [...new Set(list)]),
});
