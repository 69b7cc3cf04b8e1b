/**
 * Tenancy, one rule for every route that reads or writes campaigns (management, reporting,
 * conversions): a campaign belongs to the organization whose API key made it, and that organization
 * sees it while the campaign's user is a member of it. The spec's rule (only campaigns of a member
 * can be read or changed) holds, and a user who is a member of two organizations (an agency's person
 * serving two clients) does not show one organization's campaigns to the other. A campaign, line
 * item or click that fails it is indistinguishable from a missing one.
 *
 * SQL text to embed in a parameterized query; the arguments are the caller's placeholders and
 * column names or aliases (never values), so the organization id stays a bound parameter.
 */

/** The members of the organization `organization` names: the users whose campaigns it can see. */
export function membersOf(organization: string): string {
  return `SELECT m.user_id FROM memberships m WHERE m.organization_id = ${organization}`;
}

/** True when the user `user` names (a placeholder) is a member of the organization. */
export function memberOf(organization: string, user: string): string {
  return `${user} IN (${membersOf(organization)})`;
}

/** True when the campaign row aliased `campaign` belongs to the organization and its user is a member. */
export function campaignOf(organization: string, campaign: string): string {
  return `${campaign}.organization_id = ${organization} AND ${memberOf(organization, `${campaign}.user_id`)}`;
}
