import type { Permission, Session } from './session.js';

/** Whether the signed-in credential may do what needs `permission`; a session from before permissions were kept may all. */
export function may(session: Session, permission: Permission | undefined): boolean {
  return !permission || !session.permissions || session.permissions.includes(permission);
}

/** Why an action is off, shown beside it. */
export const lacking: Record<Permission, string> = {
  campaigns: 'This API key has no campaigns permission: it can read campaigns and reports, not create, activate or pause them.',
  reporting: 'This API key has no reporting permission: it can manage campaigns, not read reports.',
};
