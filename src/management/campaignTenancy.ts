/**
 * Tenancy, one rule for every route that reads or writes campaigns (management, reporting,
 * conversions): a campaign belongs to an API key's organization when the campaign's user is a member
 * of it. A campaign, line item or click that fails it is indistinguishable from a missing one.
 *
 * SQL text to embed in a parameterized query; the arguments are the caller's placeholders and
 * column names (never values), so the organization id stays a bound parameter.
 */

/** The members of the organization `organization` names: the users whose campaigns it sees. */
export function membersOf(organization: string): string {
  return `SELECT m.user_id FROM memberships m WHERE m.organization_id = ${organization}`;
}

/** True when the user `user` names (a campaign's c.user_id, or a placeholder) is a member of the organization. */
export function memberOf(organization: string, user: string): string {
  return `${user} IN (${membersOf(organization)})`;
}
