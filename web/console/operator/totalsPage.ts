import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, query, whileCurrent } from '../api.js';
import { downloadCsv } from '../csvExport.js';
import { go, type Route } from '../route.js';
import type { Session } from '../session.js';
import { ErrorMessage, formatCount, usd } from '../ui.js';
import { DateWindowForm, MAX_WINDOW_DAYS, windowInAddress, windowPaths, type DateWindow } from '../dateWindowForm.js';
import { TableWrap } from '../tableWrap.js';
import type { OperatorDailyRow } from '../../../src/reporting/operatorReport.js';

type Figure = Exclude<keyof OperatorDailyRow, 'date'>;

/** The columns after the day, in the order shown: money first, what the operator looks for. */
const columns: readonly (readonly [string, Figure, (value: number) => string])[] = [
  ['Spend (USD)', 'spend_usd', usd],
  ['Publisher earnings (USD)', 'publisher_earnings_usd', usd],
  ['Platform margin (USD)', 'platform_margin_usd', usd],
  ['Requests', 'requests', formatCount],
  ['Filled', 'filled', formatCount],
  ['Impressions', 'impressions', formatCount],
  ['Invalid impressions', 'invalid_impressions', formatCount],
  ['Clicks', 'clicks', formatCount],
  ['Invalid clicks', 'invalid_clicks', formatCount],
];

/** The platform's totals per UTC day over a date range (GET /v1/admin/reporting), with their sum and a CSV. */
export function TotalsPage({ session, route }: { session: Session; route: Route }) {
  const addressed = windowInAddress(route);
  const [from, setFrom] = useState(addressed.from);
  const [to, setTo] = useState(addressed.to);
  const [applied, setApplied] = useState(addressed);
  const [rows, setRows] = useState<OperatorDailyRow[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);

  // Every day of the window is one row (at most 93), under the route's default page of 100.
  const params = { date_from: applied.from, date_to: applied.to };
  useEffect(() => {
    setError(null);
    setRows(null);
    return whileCurrent(api<{ data: OperatorDailyRow[] }>(session, 'GET', `/v1/admin/reporting${query(params)}`), (answer) => setRows(answer.data), setError);
  }, [applied, attempt]);

  function apply(dates: DateWindow) {
    setApplied(dates);
    go('totals', { ...dates });
  }
  const sum = (figure: Figure) => (rows ?? []).reduce((total, row) => total + row[figure], 0);

  return html`
    <${DateWindowForm} from=${from} to=${to} onFrom=${setFrom} onTo=${setTo} error=${error} onApply=${apply} submitLabel="Show totals"
      note=${html`A report covers at most ${MAX_WINDOW_DAYS} days. Spend is the valid spend billed to advertisers;
        publisher earnings are each publisher's share in effect that day; the margin is the difference. Invalid traffic bills nothing
        and is counted apart (forged links included). Today is not final.`}
      actions=${html`<button type="button" class="secondary" onClick=${() => downloadCsv(session, '/v1/admin/reporting', params, `platform_totals_${applied.from}_${applied.to}.csv`).catch(setError)}>Download CSV</button>`} />
    <${ErrorMessage} error=${error} shownPaths=${windowPaths} retry=${() => setAttempt((count) => count + 1)} />
    ${rows === null && !error && html`<p role="status">Loading totals…</p>`}
    ${rows && html`<${TableWrap} label="Platform totals by day"><table aria-label="Platform totals by day">
      <caption class="hint">${`${applied.from} to ${applied.to} (UTC), one row per day.`}</caption>
      <thead><tr><th scope="col">Day</th>${columns.map(([title]) => html`<th scope="col" class="num">${title}</th>`)}</tr></thead>
      <tbody>${rows.map((row) => html`<tr key=${row.date}>
        <th scope="row" class="date">${row.date}</th>
        ${columns.map(([title, figure, show]) => html`<td class="num" data-column=${title}>${show(row[figure])}</td>`)}
      </tr>`)}</tbody>
      <tfoot><tr><th scope="row">Total</th>${columns.map(([title, figure, show]) => html`<td class="num" data-column=${title}>${show(sum(figure))}</td>`)}</tr></tfoot>
    </table><//>`}`;
}
