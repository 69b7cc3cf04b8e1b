import { z } from 'zod';
import { textBlock, textLine } from '../management/fieldSchemas.js';

export const publisherIdParam = z.object({ publisher_id: z.uuid() });
export const publisherTokenIdParam = z.object({ id: z.uuid() });

/** Placement ids are the publisher's own strings: printable, no control characters, no slashes. */
export const placementId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:~-]+$/, 'may hold letters, digits and . _ : ~ - only');
export const placementIdParam = z.object({ id: placementId });

export const createPublisherBody = z.strictObject({ name: textLine(200) });
export const createPlacementBody = z.strictObject({ id: placementId, name: textLine(200).optional() });
export const certificationBody = z.strictObject({ reason: textBlock(1000).optional() }).default({});
