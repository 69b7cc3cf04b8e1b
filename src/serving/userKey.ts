import { createHmac } from 'node:crypto';

/**
 * The keyed form of a publisher's user id, the only form serving uses and events store: an
 * HMAC-SHA256 under a key derived from TRACKING_SECRET, truncated to 128 bits (base64url). The raw
 * id is never kept; without the secret a key cannot be tied back to it. Rotating TRACKING_SECRET
 * starts every user's frequency counts afresh.
 */
export function userKeyer(trackingSecret: string): (userId: string) => string {
  const key = createHmac('sha256', trackingSecret).update('adsvc user key v1').digest();
  return (userId) => createHmac('sha256', key).update(userId).digest().subarray(0, 16).toString('base64url');
}
