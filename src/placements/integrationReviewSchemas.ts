import { z } from 'zod';
import { placementId } from './placementSchemas.js';
import { textBlock } from '../management/fieldSchemas.js';
import { boundedInteger, queryParams } from '../http/queryParams.js';

const MAX_PLACEMENTS_PER_REVIEW = 100;
const reviewStatuses = ['pending', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof reviewStatuses)[number];

export const createReviewBody = z.strictObject({
  placement_ids: z
    .array(placementId)
    .min(1)
    .max(MAX_PLACEMENTS_PER_REVIEW)
    .transform((ids) => [...new Set(ids)]),
  /** Anything the publisher wants the reviewer to know (where to look, test pages). */
  note: textBlock(2000).optional(),
});

export const reviewIdParam = z.object({ id: z.uuid() });

export const listReviewsQuery = queryParams({
  status: z.enum(reviewStatuses).optional(),
  limit: boundedInteger(1, 500).default(100),
  offset: boundedInteger(0, 1_000_000_000).default(0),
});

export const approveReviewBody = z.strictObject({ reason: textBlock(1000).optional() }).default({});
export const rejectReviewBody = z.strictObject({ reason: textBlock(1000) });
