import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, query, whileCurrent } from '../api.js';
import { downloadCsv, downloadEventsCsv } from '../csvExport.js';
import { go, type Route } from '../route.js';
import type { Session } from '../session.js';
import { ErrorMessage, formatCount, Select } from '../ui.js';
import { IvtReasonText } from '../ivtReasonText.js';
import { DateWindowForm, MAX_WINDOW_DAYS, windowInAddress, windowPaths, type DateWindow } from '../dateWindowForm.js';
import { metricColumns, type Campaign, type LineItem } from './advertiserApi.js';
import type { DailyRow } from '../../../src/reporting/dailyReport.js';
import type { TrafficQualityRow } from '../../../src/reporting/trafficQualityReport.js';
import { BreakdownTable, breakdowns, isBreakdown, MetricCells, MetricHeaders, NoRateNote, type Breakdown, type BreakdownRow } from './breakdownTable.js';
import { DailyChart } from './dailyChart.js';
import { ROWS_PER_PAGE, RowsPager, type RowsPage } from '../rowsPager.js';
import { TableWrap } from '../tableWrap.js';

/** Campaigns a request when listing them all for the campaign picker (names only: no request per row). */
const CAMPAIGNS_PER_REQUEST = 200;

interface Report {
  daily: DailyRow[];
  /** The rows of `breakdown`, kept together so that a table never shows one breakdown's rows under another's columns. */
  breakdown: Breakdown;
  rows: BreakdownRow[];
  rowsPage: RowsPage;
  /** By line item with one campaign chosen: whether `rows` lists every line item of it (idleLineItemRows). */
  everyLineItem: boolean;
  quality: TrafficQualityRow[];
  qualityPage: RowsPage;
}

interface ReportAnswer<Row> {
  data: Row[];
  pagination: { has_more: boolean };
}

/** Every campaign of the organization for the picker, walking the list's cursor to its end. */
async function allCampaigns(session: Session): Promise<Campaign[]> {
  const campaigns: Campaign[] = [];
  let cursor: string | undefined;
  do {
    const page = await api<{ data: Campaign[]; pagination: { next_cursor: string | null } }>(session, 'GET', `/v1/advertiser/campaigns${query({ limit: CAMPAIGNS_PER_REQUEST, cursor })}`);
    campaigns.push(...page.data);
    cursor = page.pagination.next_cursor ?? undefined;
  } while (cursor);
  return campaigns;
}

/**
 * The line-item breakdown has a row only for line items with valid events in the window (the
 * API's, docs/reporting.md); an advertiser looking at one campaign expects every line item of it,
 * a paused or new one with zeros. So with one campaign chosen, its line items without a row are
 * added after the others as zero rows, when the breakdown is whole on this page (a campaign with
 * more than a page of line items with events keeps the API's rows, and the page says so).
 */
function idleLineItemRows(rows: BreakdownRow[], page: RowsPage, campaign: { name: string; lineItems: LineItem[] } | null): BreakdownRow[] | null {
  if (campaign === null || page.offset !== 0 || page.hasMore) return null;
  const listed = new Set(rows.map((row) => row.line_item_id));
  const zeros = Object.fromEntries(metricColumns.map(([name]) => [name, 0])) as BreakdownRow;
  return campaign.lineItems.filter((item) => !listed.has(item.id)).map((item) => ({
    ...zeros,
    campaign_id: item.campaign_id,
    campaign_name: campaign.name,
    line_item_id: item.id,
    line_item_title: item.title,
    unique_users: 0,
  }));
}

/** A campaign's name and line items, read as any key may; null when it cannot be read (an id not found leaves the API's rows as they are). */
function campaignWithLineItems(session: Session, id: string): Promise<{ name: string; lineItems: LineItem[] } | null> {
  const segment = encodeURIComponent(id);
  return Promise.all([
    api<{ data: Campaign }>(session, 'GET', `/v1/advertiser/campaigns/${segment}`),
    api<{ data: LineItem[] }>(session, 'GET', `/v1/advertiser/campaigns/${segment}/line-items`),
  ]).then(([campaign, lineItems]) => ({ name: campaign.data.name, lineItems: lineItems.data }), () => null);
}

/** The report an address asks for (#/report?from=…&to=…&campaign=…&by=…), with the page's defaults for what it leaves out. */
interface ReportChoice extends DateWindow {
  campaign: string;
  breakdown: Breakdown;
}

function reportInAddress(route: Route): ReportChoice {
  const by = route.params.get('by');
  return {
    ...windowInAddress(route),
    campaign: route.params.get('campaign') ?? '',
    breakdown: isBreakdown(by) ? by : 'campaign',
  };
}

function sameReport(one: ReportChoice, other: ReportChoice): boolean {
  return one.from === other.from && one.to === other.to && one.campaign === other.campaign && one.breakdown === other.breakdown;
}

/**
 * Reports over a date range: the daily chart and table, one row per campaign (or line item,
 * creative, placement, country), invalid traffic by reason, and CSV exports of each, all from the
 * reporting routes with the same parameters.
 */
export function ReportPage({ session, route }: { session: Session; route: Route }) {
  const addressed = reportInAddress(route);
  const [from, setFrom] = useState(addressed.from);
  const [to, setTo] = useState(addressed.to);
  const [campaigns, setCampaigns] = useState<Campaign[]>([]);
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [applied, setApplied] = useState(addressed);
  const [attempt, setAttempt] = useState(0);

  // The address is the report's (bookmarks, Back and Forward, an edited URL): when it names
  // another report than the one shown, that one is shown. The page's own changes write the same
  // address back (show), so they come round here as no change.
  useEffect(() => {
    if (sameReport(addressed, applied)) return;
    setApplied(addressed);
    setFrom(addressed.from);
    setTo(addressed.to);
  }, [route]);

  useEffect(() => {
    allCampaigns(session).then(setCampaigns, () => setCampaigns([]));
  }, []);

  // The tables' pages belong to the report they page through: another range or breakdown starts at their first page.
  const [offsets, setOffsets] = useState({ applied, rows: 0, quality: 0 });
  const rowsOffset = offsets.applied === applied ? offsets.rows : 0;
  const qualityOffset = offsets.applied === applied ? offsets.quality : 0;
  const pageTo = (table: 'rows' | 'quality') => (offset: number) => setOffsets({ applied, rows: rowsOffset, quality: qualityOffset, [table]: offset });

  const params = (breakdown?: string) => ({ date_from: applied.from, date_to: applied.to, campaign_ids: applied.campaign || undefined, breakdown });
  useEffect(() => {
    setError(null);
    const page = { limit: ROWS_PER_PAGE };
    const lineItemsOf = applied.breakdown === 'line_item' && applied.campaign !== '' ? applied.campaign : null;
    return whileCurrent(Promise.all([
      api<ReportAnswer<DailyRow>>(session, 'GET', `/v1/advertiser/reporting/campaigns${query({ ...params('daily'), limit: 1000 })}`),
      api<ReportAnswer<BreakdownRow>>(session, 'GET', `/v1/advertiser/reporting/campaigns${query({ ...params(applied.breakdown), ...page, offset: rowsOffset })}`),
      api<ReportAnswer<TrafficQualityRow>>(session, 'GET', `/v1/advertiser/reporting/traffic-quality${query({ ...params(), ...page, offset: qualityOffset })}`),
      lineItemsOf === null ? null : campaignWithLineItems(session, lineItemsOf),
    ]), ([daily, broken, quality, campaign]) => {
      const rowsPage = { offset: rowsOffset, hasMore: broken.pagination.has_more };
      const idle = idleLineItemRows(broken.data, rowsPage, campaign);
      setReport({
        daily: daily.data,
        breakdown: applied.breakdown,
        rows: idle === null ? broken.data : [...broken.data, ...idle],
        rowsPage,
        everyLineItem: idle !== null,
        quality: quality.data,
        qualityPage: { offset: qualityOffset, hasMore: quality.pagination.has_more },
      });
    }, setError);
  }, [applied, rowsOffset, qualityOffset, attempt]);

  function show(next: ReportChoice) {
    setApplied(next);
    go('report', { from: next.from, to: next.to, ...(next.campaign ? { campaign: next.campaign } : {}), ...(next.breakdown === 'campaign' ? {} : { by: next.breakdown }) });
  }
  const chooseCampaign = (id: string) => show({ ...applied, campaign: id });
  const chooseBreakdown = (breakdown: string) => isBreakdown(breakdown) && show({ ...applied, breakdown });
  const breakdownLabel = breakdowns.find(([name]) => name === applied.breakdown)![1];
  const chosen = campaigns.find((item) => item.id === applied.campaign);
  const downloadEvents = (campaignId: string) =>
    downloadEventsCsv(session, { campaign_id: campaignId, date_from: applied.from, date_to: applied.to }, `events_${campaignId}_${applied.from}_${applied.to}.csv`).catch(setError);
  const download = (breakdown: string | undefined, name: string) =>
    downloadCsv(session, `/v1/advertiser/reporting/${breakdown ? 'campaigns' : 'traffic-quality'}`, params(breakdown), `${name}_${applied.from}_${applied.to}.csv`).catch(setError);

  return html`
    <${DateWindowForm} from=${from} to=${to} onFrom=${setFrom} onTo=${setTo} error=${error} onApply=${(dates: DateWindow) => show({ ...applied, ...dates })}
      submitLabel="Show report" longerWindow="export consecutive ranges"
      fields=${html`<${Select} label="Campaign" value=${applied.campaign} onInput=${chooseCampaign}
        options=${[['', 'All campaigns'], ...campaigns.map((item) => [item.id, item.name] as const)]} />`}
      note=${html`A report covers at most ${MAX_WINDOW_DAYS} days (the end date minus the start date), so that
        every answer stays fast; for a longer period, export consecutive ranges as CSV.`} />
    <${ErrorMessage} error=${error} shownPaths=${windowPaths} retry=${() => setAttempt((count) => count + 1)} />
    ${report && html`
      <h2>By day</h2>
      <${DailyChart} rows=${report.daily} />
      <div class="actions"><button type="button" class="secondary" onClick=${() => download('daily', 'daily-report')}>Download daily CSV</button></div>
      <${TableWrap} label="Metrics by day"><table aria-label="Metrics by day">
        <thead><tr><th scope="col">Day (UTC)</th><${MetricHeaders} /></tr></thead>
        <tbody>${report.daily.map((row) => html`<tr><th scope="row" class="date">${row.date}</th><${MetricCells} row=${row} /></tr>`)}</tbody>
      </table><//>
      <${NoRateNote} rows=${report.daily} />
      <h2>By ${breakdownLabel}</h2>
      <div class="single-field"><${Select} label="Break down by" value=${applied.breakdown} onInput=${chooseBreakdown} options=${breakdowns} /></div>
      <div class="actions"><button type="button" class="secondary" onClick=${() => download(applied.breakdown, `${applied.breakdown.replace('_', '-')}-report`)}>Download ${breakdownLabel} CSV</button></div>
      <${BreakdownTable} breakdown=${report.breakdown} rows=${report.rows} />
      <${RowsPager} page=${report.rowsPage} shown=${report.rows.length} label=${`metrics by ${breakdownLabel}`} onOffset=${pageTo('rows')} />
      ${report.breakdown === 'line_item' && html`<p class="hint" data-testid="line-item-rows">${report.everyLineItem
        ? `Every line item of ${chosen?.name ?? 'the campaign'} is listed: those without valid events in this range show zeros (the CSV, as the API, lists only line items with events).`
        : applied.campaign
          ? 'Only line items with valid events in this range are listed.'
          : 'Only line items with valid events in this range are listed; choose a campaign above to list every line item of it, zeros included.'}</p>`}
      <h2>Traffic quality</h2>
      <p class="hint">Invalid traffic (bots, data centers, duplicates…) is never billed or counted above; this is what was filtered out, by reason.</p>
      ${report.quality.length === 0 ? html`<p>No invalid traffic in this range.</p>` : html`
        <div class="actions"><button type="button" class="secondary" onClick=${() => download(undefined, 'traffic-quality')}>Download traffic-quality CSV</button></div>
        <${TableWrap} label="Invalid traffic by reason"><table aria-label="Invalid traffic by reason">
          <thead><tr><th scope="col">Campaign</th><th scope="col">Reason</th><th scope="col" class="num">Invalid impressions</th><th scope="col" class="num">Invalid clicks</th><th scope="col" class="num">Invalid conversions</th></tr></thead>
          <tbody>${report.quality.map((row) => html`<tr><th scope="row">${row.campaign_name}</th><td><${IvtReasonText} reason=${row.ivt_reason} /></td><td class="num">${formatCount(row.invalid_impressions)}</td><td class="num">${formatCount(row.invalid_clicks)}</td><td class="num">${formatCount(row.invalid_conversions)}</td></tr>`)}</tbody>
        </table><//>
        <${RowsPager} page=${report.qualityPage} shown=${report.quality.length} label="invalid traffic" onOffset=${pageTo('quality')} />`}
      <h2>Every event (audit export)</h2>
      <p class="hint">Every impression, click and conversion stored for one campaign in this range, valid and invalid, with its time (UTC), cost in USD and, for invalid traffic, its reason: what the figures above are counted from.</p>
      ${applied.campaign
        ? html`<div class="actions"><button type="button" class="secondary" onClick=${() => downloadEvents(applied.campaign)}>Download every event of ${chosen?.name ?? 'this campaign'} (CSV)</button></div>`
        : html`<p>Choose a campaign above to download its events.</p>`}`}`;
}
