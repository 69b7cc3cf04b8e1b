import { html } from 'htm/preact';
import { metricColumns } from './advertiserApi.js';
import type { PerformanceMetrics } from '../../../src/reporting/performanceMetrics.js';
import { TableWrap } from '../tableWrap.js';
import { NoRateCell } from '../noRate.js';

/** The advertiser report's breakdowns the console offers as a table (daily has its own chart and table). */
export const breakdowns = [
  ['campaign', 'campaign'],
  ['line_item', 'line item'],
  ['creative', 'creative'],
  ['placement', 'placement'],
  ['country', 'country'],
] as const;

export type Breakdown = (typeof breakdowns)[number][0];

export function isBreakdown(value: string | null): value is Breakdown {
  return breakdowns.some(([name]) => name === value);
}

/** A row of any of those breakdowns (openapi.yaml: AdvertiserCampaignRow, AdvertiserLineItemRow, …). */
export type BreakdownRow = PerformanceMetrics & Record<string, string | number | null>;

/** Imported events have no creative: the API's row of the nil UUID (docs/reporting.md), named as such. */
const NO_CREATIVE = '00000000-0000-0000-0000-000000000000';

/** What names a row of each breakdown: the first is the row's header cell, the others plain cells. */
const keyColumns: Record<Breakdown, { titles: string[]; cells(row: BreakdownRow): (string | number | null | undefined)[] }> = {
  // A deleted campaign is listed while it has events in the window: say so rather than only "completed".
  campaign: { titles: ['Campaign', 'Status'], cells: (row) => [row.campaign_name, row.campaign_deleted_at ? 'deleted' : row.campaign_status] },
  // Titles are null for events without a creative (imported) or without a line item or creative known.
  line_item: { titles: ['Line item', 'Campaign'], cells: (row) => [row.line_item_title ?? row.line_item_id, row.campaign_name] },
  creative: {
    titles: ['Creative', 'Campaign'],
    cells: (row) => [row.creative_title ?? (row.creative_id === NO_CREATIVE ? 'Imported (no creative)' : row.creative_id), row.campaign_name],
  },
  placement: { titles: ['Placement'], cells: (row) => [row.placement_name ?? row.placement_id] },
  country: { titles: ['Country'], cells: (row) => [row.country] },
};

/** Each rate with the count it divides by, and what a 0 of that count is called (NoRateCell). */
const dividedBy: Partial<Record<keyof PerformanceMetrics, { count: keyof PerformanceMetrics; none: string }>> = {
  ctr: { count: 'impressions', none: 'no impressions' },
  cpc_usd: { count: 'clicks', none: 'no clicks' },
  cpa_usd: { count: 'conversions', none: 'no conversions' },
  cvr: { count: 'clicks', none: 'no clicks' },
  ecpm_usd: { count: 'impressions', none: 'no impressions' },
  roas: { count: 'spend_usd', none: 'no spend' },
};

function undefinedRate(row: PerformanceMetrics, name: keyof PerformanceMetrics): string | undefined {
  const rate = dividedBy[name];
  return rate !== undefined && row[rate.count] === 0 ? rate.none : undefined;
}

/** A figure as the report tables and the chart's axes write it: points, thousands separators, up to six decimals. */
export function reportNumber(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 6 });
}

export function MetricCells({ row }: { row: PerformanceMetrics }) {
  return metricColumns.map(([name]) => {
    const none = undefinedRate(row, name);
    return none === undefined ? html`<td class="num">${reportNumber(row[name])}</td>` : html`<${NoRateCell} none=${none} />`;
  });
}

/** Under a table with a "—": what it stands for, and that the CSV differs (it keeps the API's 0). */
export function NoRateNote({ rows }: { rows: PerformanceMetrics[] }) {
  if (!rows.some((row) => metricColumns.some(([name]) => undefinedRate(row, name) !== undefined))) return '';
  return html`<p class="hint" data-testid="no-rate-note">— : nothing to divide by (CTR and eCPM without impressions, CPC and CVR without clicks, CPA without conversions, ROAS without spend). The CSV and the API write 0 there.</p>`;
}

export function MetricHeaders() {
  return metricColumns.map(([, title]) => html`<th scope="col" class="num">${title}</th>`);
}

/** The breakdowns whose rows carry reach (`unique_users`): distinct users are counted per campaign and line item only. */
const withReach: ReadonlySet<Breakdown> = new Set(['campaign', 'line_item']);

/** One row per campaign, line item, creative, placement or country: its key columns, then every metric (and reach where the API gives it). */
export function BreakdownTable({ breakdown, rows }: { breakdown: Breakdown; rows: BreakdownRow[] }) {
  const key = keyColumns[breakdown];
  const reach = withReach.has(breakdown);
  const label = breakdowns.find(([name]) => name === breakdown)![1];
  if (rows.length === 0) return html`<p>No valid events by ${label} in this range.</p>`;
  return html`<${TableWrap} label=${`Metrics by ${label}`}><table aria-label=${`Metrics by ${label}`}>
    <thead><tr>${key.titles.map((title) => html`<th scope="col">${title}</th>`)}<${MetricHeaders} />${reach ? html`<th scope="col" class="num">Reach (users)</th>` : ''}</tr></thead>
    <tbody>${rows.map((row) => {
      const [name, ...rest] = key.cells(row);
      const users = reach ? html`<td class="num">${reportNumber(Number(row.unique_users))}</td>` : '';
      return html`<tr><th scope="row">${name}</th>${rest.map((cell) => html`<td>${cell}</td>`)}<${MetricCells} row=${row} />${users}</tr>`;
    })}</tbody>
  </table><//>
  <${NoRateNote} rows=${rows} />`;
}
