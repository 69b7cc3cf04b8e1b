import { z } from 'zod';
import { textBlock, textLine } from '../management/fieldSchemas.js';
import { pageQueryFields, refineOneStart } from '../http/keysetPaging.js';
import { queryParams } from '../http/queryParams.js';

export const publisherIdParam = z.object({ publisher_id: z.uuid() });
export const publisherTokenIdParam = z.object({ id: z.uuid() });

/**
 * The longest placement id, and so the longest id any path carries (the others are UUIDs): the
 * router's limit for a path segment (src/app.ts), so every placement that can be created can be managed.
 */
export const PLACEMENT_ID_MAX_LENGTH = 128;

/** Placement ids are the publisher's own strings: printable, no control characters, no slashes. */
export const placementId = z
  .string()
  .min(1)
  .max(PLACEMENT_ID_MAX_LENGTH)
  .regex(/^[A-Za-z0-9._:~-]+$/, 'may hold letters, digits and . _ : ~ - only');
export const placementIdParam = z.object({ id: placementId });

export const createPublisherBody = z.strictObject({ name: textLine(200) });
export const createPlacementBody = z.strictObject({ id: placementId, name: textLine(200).optional() });
export const certificationBody = z.strictObject({ reason: textBlock(1000).optional() }).default({});

/** The list of a publisher's placements pages by (created_at, placement id): see src/http/keysetPaging.ts. */
export const placementListQuery = queryParams(pageQueryFields(placementId)).superRefine(refineOneStart);
