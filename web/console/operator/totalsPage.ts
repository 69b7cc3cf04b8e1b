import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, query, whileCurrent } from '../api.js';
import { downloadCsv } from '../csvExport.js';
import { go, type Route } from '../route.js';
import type { Session } from '../session.js';
import { ErrorMessage, Field, formatCount, usd } from '../ui.js';
import { addDays, daysBetween, todayUtc } from '../advertiser/advertiserApi.js';
import { TableWrap } from '../tableWrap.js';

/** The reporting routes' limit (the spec's): date_to minus date_from at most 92 days. */
const MAX_WINDOW_DAYS = 92;

/** One row of GET /v1/admin/reporting (openapi.yaml: OperatorDailyRow): the platform's totals of a UTC day. */
interface TotalsRow {
  date: string;
  requests: number;
  filled: number;
  impressions: number;
  invalid_impressions: number;
  clicks: number;
  invalid_clicks: number;
  spend_usd: number;
  publisher_earnings_usd: number;
  platform_margin_usd: number;
}

type Figure = Exclude<keyof TotalsRow, 'date'>;

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
  const today = todayUtc();
  const [from, setFrom] = useState(route.params.get('from') ?? addDays(today, -6));
  const [to, setTo] = useState(route.params.get('to') ?? today);
  const [applied, setApplied] = useState({ from, to });
  const [rows, setRows] = useState<TotalsRow[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);

  const windowDays = daysBetween(from, to);
  const windowProblem =
    Number.isNaN(windowDays) ? 'Pick both dates.'
    : windowDays < 0 ? 'The end date is before the start date.'
    : windowDays > MAX_WINDOW_DAYS ? `This range is ${windowDays} days; a report covers at most ${MAX_WINDOW_DAYS}. Pick a later start date (${addDays(to, -MAX_WINDOW_DAYS)} or after).`
    : null;

  // Every day of the window is one row (at most 93), under the route's default page of 100.
  const params = { date_from: applied.from, date_to: applied.to };
  useEffect(() => {
    setError(null);
    setRows(null);
    return whileCurrent(api<{ data: TotalsRow[] }>(session, 'GET', `/v1/admin/reporting${query(params)}`), (answer) => setRows(answer.data), setError);
  }, [applied, attempt]);

  function submit(event: Event) {
    event.preventDefault();
    if (windowProblem) return;
    setApplied({ from, to });
    go('totals', { from, to });
  }
  const sum = (figure: Figure) => (rows ?? []).reduce((total, row) => total + row[figure], 0);

  return html`
    <form class="card" onSubmit=${submit} noValidate aria-describedby="totals-rule">
      <div class="grid">
        <${Field} label="From (UTC day)" type="date" value=${from} onInput=${setFrom} path="date_from" error=${error} />
        <${Field} label="To (UTC day, included)" type="date" value=${to} onInput=${setTo} path="date_to" error=${error} />
      </div>
      <p id="totals-rule" class="hint">A report covers at most ${MAX_WINDOW_DAYS} days. Spend is the valid spend billed to advertisers;
        publisher earnings are each publisher's share in effect that day; the margin is the difference. Invalid traffic bills nothing
        and is counted apart (forged links included). Today is not final.</p>
      ${windowProblem && html`<p class="field-error" role="alert">${windowProblem}</p>`}
      <div class="actions">
        <button type="submit" disabled=${Boolean(windowProblem)}>Show totals</button>
        <button type="button" class="secondary" onClick=${() => downloadCsv(session, '/v1/admin/reporting', params, `platform_totals_${applied.from}_${applied.to}.csv`).catch(setError)}>Download CSV</button>
      </div>
    </form>
    <${ErrorMessage} error=${error} shownPaths=${['date_from', 'date_to']} retry=${() => setAttempt((count) => count + 1)} />
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
