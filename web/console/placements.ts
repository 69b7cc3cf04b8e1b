import { html } from 'htm/preact';
import { formatDateTime } from './ui.js';
import { TableWrap } from './tableWrap.js';
import { IvtReasonText, ivtReasonLabels } from './ivtReasonText.js';
import type { CertificationHistoryEntry } from '../../src/placements/placementRepository.js';
import type { ImpressionSummary, RecentImpression } from '../../src/sdk/recentImpressions.js';

/**
 * The integration check's answer (openapi.yaml RecentImpressionsResponse) with the fields the console
 * reads; its rows and summary are the server's own types (src/sdk/recentImpressions.ts), as are
 * placements and reviews (src/placements/).
 */
export interface IntegrationCheck {
  window: { hours: number };
  summary: ImpressionSummary;
  impressions: RecentImpression[];
}

export function CertificationBadge({ state }: { state: string }) {
  return html`<span class=${`status status-${state}`} data-testid="certification">${state}</span>`;
}

export function CertificationHistory({ history }: { history: CertificationHistoryEntry[] }) {
  if (history.length === 0) return html`<p class="hint">No certification changes yet.</p>`;
  return html`<${TableWrap} label="Certification history"><table aria-label="Certification history">
    <thead><tr><th scope="col">When</th><th scope="col">Change</th><th scope="col">By</th><th scope="col">Reason</th></tr></thead>
    <tbody>${history.map((entry) => html`<tr><td class="time">${formatDateTime(entry.at)}</td><td>${entry.from ?? 'new'} → ${entry.to}</td><td>${entry.actor}</td><td>${entry.reason ?? ''}</td></tr>`)}</tbody>
  </table><//>`;
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** How many of the latest impressions the integration check lists; its summary counts those only (openapi.yaml). */
const CHECKED_IMPRESSIONS = 50;

/** The recent-impressions route of a placement, asking for the number of impressions the summary's label names. */
export function recentImpressionsPath(base: string, placementId: string): string {
  return `${base}/placements/${encodeURIComponent(placementId)}/recent-impressions?limit=${CHECKED_IMPRESSIONS}`;
}

/**
 * What the summary counts: the latest CHECKED_IMPRESSIONS impressions of the window, not the whole
 * window. When fewer came, they are all of the window's.
 */
function summaryScope(check: IntegrationCheck): string {
  const { impressions } = check.summary;
  const window = `the last ${check.window.hours} hours`;
  if (impressions === 0) return `No impressions in ${window}`;
  if (impressions === 1) return `The one impression of ${window}`;
  if (impressions < CHECKED_IMPRESSIONS) return `All ${impressions} impressions of ${window}`;
  return `Latest ${impressions} impressions of ${window} (older ones are not counted here)`;
}

/** requested_as in words: how the pixel was requested (its Sec-Fetch-Dest), what an integration gets wrong. */
const requestedAsText: Record<RecentImpression['requested_as'], string> = {
  image: 'an image load',
  script_fetch: 'a script’s fetch or XHR',
  other: 'a frame, page or script tag',
  no_metadata: 'no Fetch Metadata',
};

/**
 * What the reasons a publisher acts on mean and what to check, for those in the table: `filtered`
 * (a verdict the publisher is not told, so that a script cannot be tuned against it) and the
 * integration faults whose fix is in the publisher's page.
 */
const reasonLegend: Record<string, string> = {
  filtered: 'not billed: judged as not a person’s view. The reason is not shared; check that the reader’s browser loads the pixel as an image (new Image() or <img>) when the ad is in view, never your server or app backend.',
  not_image_request: 'the pixel was fetched by a script (fetch, XMLHttpRequest, sendBeacon): load it as an image, new Image() or <img>.',
  no_fetch_metadata: 'the request claims a browser but has none of its Sec-Fetch headers: the pixel came from a server or an HTTP library, not the reader’s browser.',
  server_side: 'the pixel was requested by server code: load it in the reader’s browser instead.',
};

const requestedAsLegend = 'How the pixel was asked for (the browser’s Sec-Fetch-Dest header). An image load is right; a script’s fetch or XHR is not counted; no Fetch Metadata comes from old browsers, pages not on HTTPS, and servers.';

/**
 * The integration check: where the placement's recent pixels came from. Pixels from servers instead of
 * people's browsers are what an operator looks for before certifying.
 */
export function IntegrationCheckView({ check }: { check: IntegrationCheck }) {
  const { summary } = check;
  return html`
    <p data-testid="integration-summary">${`${summaryScope(check)}: ${summary.from_browsers} from browsers (${percent(summary.browser_share)}), ${summary.from_servers} from servers (${percent(summary.server_share)}), ${summary.unknown} unknown; ${summary.valid} counted as valid.`}</p>
    ${summary.forged > 0
      ? html`<p class="hint" data-testid="integration-forged">${`Not counted: ${summary.forged} ${summary.forged === 1 ? 'impression' : 'impressions'} of the last ${check.window.hours} hours came from links naming this placement whose signature did not verify (someone rewrote a real link). They say nothing of how this placement fires its pixel.`}</p>`
      : ''}
    ${summary.impressions === 0
      ? html`<p class="hint">No impression yet: load a page with the placement in a browser and scroll the ad into view, then refresh.</p>`
      : html`<${TableWrap} label="Recent impressions"><table aria-label="Recent impressions">
          <thead><tr><th scope="col">Time</th><th scope="col">Origin</th><th scope="col">Browser</th><th scope="col">Address</th><th scope="col">Network</th><th scope="col">Invalid because</th><th scope="col">Requested as</th><th scope="col">Source</th></tr></thead>
          <tbody>${check.impressions.map((impression) => html`<tr>
            <td class="time">${formatDateTime(impression.time)}</td><td>${impression.origin}</td><td>${impression.user_agent_family}</td>
            <td>${impression.ip_masked} (${impression.ip_class})</td><td>${impression.ip_network}</td><td>${impression.ivt === null ? '—' : html`<${IvtReasonText} reason=${impression.ivt} />`}</td>
            <td>${requestedAsText[impression.requested_as] ?? impression.requested_as}</td><td>${impression.source}</td>
          </tr>`)}</tbody>
        </table><//>
        <${Legend} impressions=${check.impressions} />`}`;
}

/** The legend under the table: the reasons in it that need explaining, and the Requested as column. */
function Legend({ impressions }: { impressions: RecentImpression[] }) {
  const reasons = [...new Set(impressions.map((impression) => impression.ivt))].filter((reason): reason is string => reason !== null && reason in reasonLegend);
  return html`<dl class="hint legend" data-testid="integration-legend">
    ${reasons.map((reason) => html`<dt>${ivtReasonLabels[reason] ?? reason} (${reason})</dt><dd>${reasonLegend[reason]}</dd>`)}
    <dt>Requested as</dt><dd>${requestedAsLegend}</dd>
  </dl>`;
}
