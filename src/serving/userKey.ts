import { createHmac } from 'node:crypto';

/**
 * The keyed form of a publisher's user id, the only form serving uses and events store: an
 * HMAC-SHA256 over the publisher's id and the user id, under a key derived from TRACKING_SECRET,
 * truncated to 128 bits (base64url). The id is the publisher's own (its sequential numbers,
 * "user-42", collide with other publishers'), so one publisher's user is never capped by, nor
 * merged in reach with, another's user of the same id. The raw id is never kept; without the secret
 * a key cannot be tied back to it. Rotating TRACKING_SECRET starts every user's frequency counts
 * afresh.
 */
export function userKeyer(trackingSecret: string): (publisherId: string, userId: string) => string {
  const key = createHmac('sha256', trackingSecret).update('adsvc user key v1').digest();
  // Publisher ids are UUIDs, all 36 characters: the separator keeps the message unambiguous anyway.
  return (publisherId, userId) => createHmac('sha256', key).update(`${publisherId}\n${userId}`).digest().subarray(0, 16).toString('base64url');
}
