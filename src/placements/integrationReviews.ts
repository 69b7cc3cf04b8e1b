import type { Postgres } from '../store/postgres.js';
import { ApiError } from '../http/errors.js';
import { changeCertification } from './placementRepository.js';
import {
  decideReview,
  findReview,
  insertReview,
  placementsInPendingReviews,
  type IntegrationReview,
} from './integrationReviewRepository.js';
import { lockPlacements } from './publisherPlacementRepository.js';

/**
 * A publisher asks for its placements to be certified. Every placement must be the publisher's
 * (404 otherwise, as if it did not exist), not certified already and not waiting in another
 * pending review (409).
 */
export async function requestReview(db: Postgres, publisherId: string, placementIds: string[], note: string | undefined): Promise<IntegrationReview> {
  const id = await db.transaction(async (tx) => {
    const placements = await lockPlacements(tx, placementIds);
    const own = new Map(placements.filter((placement) => placement.publisher_id === publisherId).map((placement) => [placement.id, placement]));
    const unknown = placementIds.filter((placementId) => !own.has(placementId));
    if (unknown.length > 0) throw new ApiError('not_found', `placement not found: ${unknown.join(', ')}`);
    const certified = placementIds.filter((placementId) => own.get(placementId)!.certification === 'certified');
    if (certified.length > 0) throw new ApiError('conflict', `placement already certified: ${certified.join(', ')}`);
    const pending = await placementsInPendingReviews(tx, placementIds);
    if (pending.length > 0) throw new ApiError('conflict', `placement already in a pending review: ${pending.join(', ')}`);
    return insertReview(tx, publisherId, placementIds, note);
  });
  return (await findReview(db, id))!;
}

/**
 * An operator approves a pending review: each placement is certified (with a history entry naming
 * the review), then the review is marked approved. Certification is idempotent, so an approval
 * interrupted half-way can simply be sent again.
 */
export async function approveReview(db: Postgres, id: string, reason: string | undefined): Promise<IntegrationReview> {
  const review = await pendingReview(db, id);
  const why = `integration review ${id} approved${reason ? `: ${reason}` : ''}`;
  for (const placementId of review.placement_ids) {
    await changeCertification(db, placementId, 'certified', 'operator', why);
  }
  if (!(await decideReview(db, id, 'approved', 'operator', reason ?? null))) throw alreadyDecided();
  return (await findReview(db, id))!;
}

export async function rejectReview(db: Postgres, id: string, reason: string): Promise<IntegrationReview> {
  await pendingReview(db, id);
  if (!(await decideReview(db, id, 'rejected', 'operator', reason))) throw alreadyDecided();
  return (await findReview(db, id))!;
}

async function pendingReview(db: Postgres, id: string): Promise<IntegrationReview> {
  const review = await findReview(db, id);
  if (!review) throw new ApiError('not_found', 'integration review not found');
  if (review.status !== 'pending') throw alreadyDecided();
  return review;
}

function alreadyDecided(): ApiError {
  return new ApiError('conflict', 'integration review is already decided');
}
