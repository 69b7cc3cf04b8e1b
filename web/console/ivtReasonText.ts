import { html } from 'htm/preact';

/**
 * The console's one home for invalid-traffic reasons in plain words: the API's codes
 * (src/ivt/ivtReasons.ts, docs/tracking.md) read as jargon to an advertiser or publisher. Every
 * code the API can answer has a label (test/unit/ivtReasonText.test.ts holds them to the API's list),
 * `filtered` included: what a publisher's integration check shows for a verdict it is not told.
 */
export const ivtReasonLabels: Readonly<Record<string, string>> = {
  bad_token: 'link signature did not verify',
  expired_token: 'link used after it expired',
  private_ip: 'from a private or local address',
  datacenter: 'from a data center or cloud server',
  invalid_ip: 'client address could not be read',
  bot: 'a known bot or automated browser',
  no_user_agent: 'sent without naming a browser',
  server_side: 'sent by server code, not a browser',
  client_hints_mismatch: 'automated browser posing as another version',
  not_image_request: 'ad pixel not loaded as an image',
  not_navigation: 'not opened by a click on the page',
  no_fetch_metadata: 'claims a browser but lacks its request headers',
  outdated_browser: 'claims a browser too old to still be in use',
  no_user_activation: 'link opened by a script, not a person',
  duplicate: 'repeat of one already counted',
  click_without_impression: 'click on an ad never seen',
  click_too_fast: 'click within a second of the ad appearing',
  impression_unverified: 'click whose ad view could not be confirmed in time',
  click_velocity: 'too many clicks from one visitor or network',
  placement_click_velocity: 'too many clicks on one placement from one block of addresses',
  impression_velocity: 'too many impressions from one network',
  invalid_click: 'conversion of an invalid click',
  outside_window: 'conversion outside the attribution window',
  filtered: 'filtered as invalid traffic (reason not shared)',
};

/** A reason in plain words, its code after it as a hint (what the CSV, the API and the docs name). */
export function IvtReasonText({ reason }: { reason: string }) {
  const label = ivtReasonLabels[reason];
  if (label === undefined) return html`<code>${reason}</code>`;
  return html`${label} <span class="hint reason-code">(${reason})</span>`;
}
