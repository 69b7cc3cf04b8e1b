import { z } from 'zod';
import { permissions } from '../http/apiKeyAuth.js';
import { textBlock, textLine } from '../management/fieldSchemas.js';

export const uuidParam = z.object({ id: z.uuid() });
export const orgIdParam = z.object({ org_id: z.uuid() });
export const publisherIdParam = z.object({ publisher_id: z.uuid() });

/** Placement ids are the publisher's own strings: printable, no control characters, no slashes. */
export const placementId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:~-]+$/, 'may hold letters, digits and . _ : ~ - only');
export const placementIdParam = z.object({ id: placementId });

export const createOrganizationBody = z.strictObject({ name: textLine(200) });
export const addUserBody = z.strictObject({ email: z.email().max(320).transform((email) => email.toLowerCase()) });
export const createApiKeyBody = z.strictObject({
  permissions: z.array(z.enum(permissions)).min(1).transform((list) => [...new Set(list)]),
});
export const createPublisherBody = z.strictObject({ name: textLine(200) });
export const createPlacementBody = z.strictObject({ id: placementId, name: textLine(200).optional() });
export const certificationBody = z.strictObject({ reason: textBlock(1000).optional() }).default({});
