import { api, ApiFailure } from './api.js';
import type { Permission, Session } from './session.js';

/**
 * The API has no route that names a key's permissions, so sign-in asks one read-only route of each
 * permission that only it opens (GET /v1/advertiser/users: campaigns; GET /v1/advertiser/reporting/
 * campaigns: reporting): 403 means the key lacks it. Any other failure counts it as held, so the page
 * offers the action and the API's own answer is shown if it is refused.
 */
const probes: readonly (readonly [Permission, string])[] = [
  ['campaigns', '/v1/advertiser/users?limit=1'],
  ['reporting', '/v1/advertiser/reporting/campaigns?limit=1'],
];

export async function keyPermissions(session: Session): Promise<Permission[]> {
  const held = await Promise.all(
    probes.map(([permission, route]) =>
      api(session, 'GET', route).then(
        () => permission,
        (failure: unknown) => (failure instanceof ApiFailure && failure.status === 403 ? null : permission),
      ),
    ),
  );
  return held.filter((permission): permission is Permission => permission !== null);
}

/** Whether the signed-in credential may do what needs `permission`; a session from before permissions were kept may all. */
export function may(session: Session, permission: Permission | undefined): boolean {
  return !permission || !session.permissions || session.permissions.includes(permission);
}

/** Why an action is off, shown beside it. */
export const lacking: Record<Permission, string> = {
  campaigns: 'This API key has no campaigns permission: it can read campaigns and reports, not create, activate or pause them.',
  reporting: 'This API key has no reporting permission: it can manage campaigns, not read reports.',
};
