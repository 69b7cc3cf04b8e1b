import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, query, whileCurrent } from '../api.js';
import { go, type Route } from '../route.js';
import type { Session } from '../session.js';
import { ROWS_PER_PAGE, RowsPager, type RowsPage } from '../rowsPager.js';
import { ErrorMessage, formatCount, usd } from '../ui.js';
import { DateWindowForm, MAX_WINDOW_DAYS, windowInAddress, windowPaths, type DateWindow } from '../dateWindowForm.js';
import { TableWrap } from '../tableWrap.js';
import { NoRateCell } from '../noRate.js';
import type { PublisherPlacementRow } from '../../../src/reporting/publisherReport.js';

const percent = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 2 }) + ' %';

/** A rate's cell when its count is 0: it has no value (NoRateCell), though the API writes 0. */
const withoutImpressions = (row: PublisherPlacementRow) => (row.impressions === 0 ? 'no impressions' : undefined);
const withoutRequests = (row: PublisherPlacementRow) => (row.requests === 0 ? 'no requests' : undefined);

/**
 * The columns after the placement, in the order shown: title, how a row's value reads, and for a
 * rate, what its count's 0 is called. Earnings first, the page's main figure, so that a phone's
 * width shows it beside the placement.
 */
const columns: readonly (readonly [string, (row: PublisherPlacementRow) => string, ((row: PublisherPlacementRow) => string | undefined)?])[] = [
  ['Earnings (USD)', (row) => usd(row.earnings_usd)],
  ['eCPM (USD)', (row) => usd(row.ecpm_usd), withoutImpressions],
  ['Impressions', (row) => formatCount(row.impressions)],
  ['Clicks', (row) => formatCount(row.clicks)],
  ['CTR', (row) => percent(row.ctr), withoutImpressions],
  ['Requests', (row) => formatCount(row.requests)],
  ['Fill rate', (row) => percent(row.fill_rate), withoutRequests],
  ['Invalid impressions', (row) => formatCount(row.invalid_impressions)],
];

function cell([title, show, noRate]: (typeof columns)[number], row: PublisherPlacementRow) {
  const none = noRate?.(row);
  return none === undefined ? html`<td class="num" data-column=${title}>${show(row)}</td>` : html`<${NoRateCell} none=${none} column=${title} />`;
}

/** What each placement earned over a date range, from the publisher reporting route. */
export function EarningsPage({ session, route }: { session: Session; route: Route }) {
  const addressed = windowInAddress(route);
  const [from, setFrom] = useState(addressed.from);
  const [to, setTo] = useState(addressed.to);
  const [applied, setApplied] = useState(addressed);
  const [rows, setRows] = useState<PublisherPlacementRow[] | null>(null);
  const [rowsPage, setRowsPage] = useState<RowsPage>({ offset: 0, hasMore: false });
  // The page belongs to the range it pages through: another range starts at its first page.
  const [paged, setPaged] = useState({ applied, offset: 0 });
  const offset = paged.applied === applied ? paged.offset : 0;
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    setError(null);
    return whileCurrent(api<{ data: PublisherPlacementRow[]; pagination: { has_more: boolean } }>(session, 'GET',
      `/v1/publisher/reporting${query({ breakdown: 'placement', date_from: applied.from, date_to: applied.to, limit: ROWS_PER_PAGE, offset })}`),
      (answer) => {
        setRows(answer.data);
        setRowsPage({ offset, hasMore: answer.pagination.has_more });
      }, setError);
  }, [applied, offset]);

  function apply(dates: DateWindow) {
    setApplied(dates);
    go('earnings', { ...dates });
  }

  return html`
    <${DateWindowForm} from=${from} to=${to} onFrom=${setFrom} onTo=${setTo} error=${error} onApply=${apply} submitLabel="Show earnings"
      note=${html`A report covers at most ${MAX_WINDOW_DAYS} days. Earnings are your share of the valid spend on
        your placements; invalid traffic (bots, data centers…) earns nothing and is counted apart. New traffic shows within a few seconds.
        Today is not final: a day is earned at one share, so when your operator changes your revenue share from today, all of today's
        earnings, those already shown included, move to the new share. Earlier days change only if your operator dates a share back to them.`} />
    <${ErrorMessage} error=${error} shownPaths=${windowPaths} />
    ${rows === null && !error && html`<p role="status">Loading earnings…</p>`}
    ${rows?.length === 0 && rowsPage.offset === 0 && html`<p>No placement yet: ask your operator to register one.</p>`}
    ${rows && rows.length > 0 && html`<${TableWrap} label="Earnings by placement"><table aria-label="Earnings by placement">
      <thead><tr><th scope="col">Placement</th>${columns.map(([title]) => html`<th scope="col" class="num">${title}</th>`)}</tr></thead>
      <tbody>${rows.map((row) => html`<tr key=${row.placement_id} data-placement=${row.placement_id}>
        <th scope="row">${row.placement_name ?? row.placement_id}${row.placement_name && html`<br /><code class="hint">${row.placement_id}</code>`}</th>
        ${columns.map((column) => cell(column, row))}
      </tr>`)}</tbody>
    </table><//>`}
    ${rows?.some((row) => columns.some(([, , noRate]) => noRate?.(row) !== undefined)) && html`<p class="hint" data-testid="no-rate-note">— : nothing to divide by (eCPM and CTR without impressions, fill rate without requests). The API writes 0 there.</p>`}
    ${rows && html`<${RowsPager} page=${rowsPage} shown=${rows.length} label="earnings by placement" onOffset=${(next: number) => setPaged({ applied, offset: next })} />`}`;
}
