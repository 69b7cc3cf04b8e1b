/** Who is signed in to this tab. Kept in sessionStorage only: gone when the tab closes, never in a cookie. */
export type Role = 'advertiser' | 'publisher' | 'operator';

/** An advertiser API key's permissions (openapi.yaml: ApiKey). */
export type Permission = 'campaigns' | 'reporting';

export interface Session {
  role: Role;
  secret: string;
  /** An advertiser key's permissions, read at sign-in from GET /v1/advertiser/me (signIn.ts). */
  permissions?: Permission[];
  /** The advertiser's organization's name, read with them. */
  organizationName?: string;
  /** The publisher's name, read at sign-in from GET /v1/publisher/me. */
  publisherName?: string;
}

const STORAGE_KEY = 'adsvc.console.session';
const roles: readonly Role[] = ['advertiser', 'publisher', 'operator'];

export function loadSession(): Session | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<Session> | null;
    const permissionsRead = stored?.permissions === undefined || (Array.isArray(stored.permissions) && stored.permissions.every((item) => typeof item === 'string'));
    const nameRead = [stored?.organizationName, stored?.publisherName].every((name) => name === undefined || typeof name === 'string');
    if (stored && roles.includes(stored.role as Role) && typeof stored.secret === 'string' && permissionsRead && nameRead) return stored as Session;
  } catch {
    // A value this console did not write: treat the tab as signed out.
  }
  return null;
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The headers the API documents: x-api-key for advertisers, a Bearer token for publishers and operators. */
export function authHeaders(session: Session): Record<string, string> {
  return session.role === 'advertiser' ? { 'x-api-key': session.secret } : { authorization: `Bearer ${session.secret}` };
}
