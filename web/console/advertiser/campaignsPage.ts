import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiFailure, query } from '../api.js';
import type { Session } from '../session.js';
import { lacking, may } from '../keyPermissions.js';
import { ErrorMessage, usd } from '../ui.js';
import { Pager, usePagedList } from '../pagedList.js';
import type { Campaign, LineItem } from './advertiserApi.js';
import { todayUtc } from '../../../src/utcDays.js';
import type { CampaignRow } from '../../../src/reporting/campaignReport.js';
import { TableWrap } from '../tableWrap.js';
import { activateCampaign, ActivationQuestion, pausedLineItems, type ActivationAnswer } from './campaignActivation.js';

interface CampaignLine {
  campaign: Campaign;
  lineItems: LineItem[];
  /** Today's spend, or why it cannot be shown (the reporting route refused or failed). */
  spentToday: number | { unavailable: string };
}

/**
 * Why today's spend cannot be shown: a key without the `reporting` permission (403) is told so;
 * any other failure (a 503 from the event store, the network) is "unavailable". Never a 0 that
 * was not measured.
 */
function spendUnavailable(failure: unknown): { unavailable: string } {
  if (failure instanceof ApiFailure && failure.status === 403) return { unavailable: 'no reporting access' };
  return { unavailable: 'unavailable' };
}

function SpentToday({ spent }: { spent: CampaignLine['spentToday'] }) {
  if (typeof spent === 'number') return html`${usd(spent)}`;
  return html`<span title=${`Spend ${spent.unavailable}`}><span aria-hidden="true">—</span><span class="visually-hidden">Spend ${spent.unavailable}</span></span>`;
}

/** Daily budgets summed per currency: "5 USD + 3 EUR a day", or null for none. */
function dailyText(lineItems: LineItem[]): string | null {
  const byCurrency = new Map<string, number>();
  for (const item of lineItems) {
    if (item.budget) byCurrency.set(item.budget.currency, (byCurrency.get(item.budget.currency) ?? 0) + item.budget.daily);
  }
  if (byCurrency.size === 0) return null;
  return [...byCurrency].map(([currency, daily]) => `${daily.toLocaleString('en-US')} ${currency}`).join(' + ') + ' a day';
}

/** Who spends what: the statuses whose daily budgets are shown apart, each named, never added to the active ones'. */
const apart = [['paused', 'paused'], ['draft', 'draft'], ['completed', 'ended']] as const;

/**
 * Budgets are per line item and in their own currency: listed as they are, not converted. Serving
 * paces each line item on its own daily budget, and only an active line item (of an active
 * campaign) is served (docs/serving.md, who can win), so the column adds up the active line items'
 * daily budgets, the most the campaign can spend in a day as it stands. A paused, draft or completed
 * line item spends nothing today: its budget is shown apart and named, "20 USD a day (paused)",
 * not added (con39: a paused line item's budget was added, as if it could be spent). A campaign
 * whose flight is over still had the budget it had: "(ended)".
 */
function budgetText(lineItems: LineItem[]): string {
  const parts = [
    dailyText(lineItems.filter((item) => item.status === 'active')),
    ...apart.map(([status, word]) => {
      const daily = dailyText(lineItems.filter((item) => item.status === status));
      return daily && `${daily} (${word})`;
    }),
  ].filter(Boolean);
  return parts.length === 0 ? 'no budget set' : parts.join('; ');
}

/**
 * Why today's spend may pass the daily budget, and how far (docs/serving.md, billing ceilings): a
 * click on an ad served earlier is billed when it comes, up to 2x the daily budget in a day, under a
 * monthly limit of 30.4x it; Google Ads tells its advertisers the same beside its daily budget.
 */
const BILLING_CEILINGS = 'A day may bill up to twice a line item\'s daily budget (late clicks on earlier ads); a UTC month, never more than 30.4 times it.';

/** What the daily budget column adds up (budgetText). */
const DAILY_BUDGET_SUM = 'Daily budget adds up the active line items\' daily budgets, each paced on its own (a paused campaign spends none); paused, draft and ended line items\' are shown apart, not added.';

/** How long "Loading campaigns…" may stay before the page says the service is not answering. */
const LOADING_TIMEOUT_MS = 15_000;

/** Campaigns a page: each row costs one line-items request, so a page stays small whatever the total. */
const CAMPAIGNS_PER_PAGE = 50;

/**
 * The advertiser's main page: the campaigns, oldest first and a page at a time (the API's cursor),
 * each with its status, today's spend (from the reporting route, today's UTC window, for this
 * page's campaigns only) against the daily budgets of its line items, and what to do next.
 */
export function CampaignsPage({ session }: { session: Session }) {
  const [reload, setReload] = useState(0);
  const list = usePagedList<Campaign>(session, '/v1/advertiser/campaigns', reload, CAMPAIGNS_PER_PAGE);
  const [lines, setLines] = useState<{ pageNumber: number; lines: CampaignLine[] } | null>(null);
  const [error, setError] = useState<unknown>(null);

  const pageNumber = list.pageNumber;
  useEffect(() => {
    const campaigns = list.rows;
    if (!campaigns) return;
    let current = true;
    (async () => {
      const today = todayUtc();
      const ids = campaigns.map((campaign) => campaign.id).join(',');
      const [report, details] = await Promise.all([
        campaigns.length === 0
          ? { data: [] }
          : api<{ data: CampaignRow[] }>(session, 'GET', `/v1/advertiser/reporting/campaigns${query({ date_from: today, date_to: today, campaign_ids: ids, limit: CAMPAIGNS_PER_PAGE })}`).catch(spendUnavailable),
        Promise.all(campaigns.map((campaign) => api<{ data: LineItem[] }>(session, 'GET', `/v1/advertiser/campaigns/${campaign.id}/line-items`))),
      ]);
      // A campaign the report has no row for spent nothing today; a failed report measured nothing.
      const spend = new Map('data' in report ? report.data.map((row) => [row.campaign_id, row.spend_usd]) : []);
      const spentToday = (id: string) => ('data' in report ? (spend.get(id) ?? 0) : report);
      if (!current) return;
      setLines({ pageNumber, lines: campaigns.map((campaign, index) => ({ campaign, lineItems: details[index]!.data, spentToday: spentToday(campaign.id) })) });
    })().catch(setError);
    return () => {
      current = false;
    };
  }, [list.rows]);
  // Another page shows "Loading" until its own rows are in (never the page before under its
  // number); a reload of the same page (after activate or pause) keeps its rows meanwhile.
  const shown = lines?.pageNumber === pageNumber ? lines.lines : null;
  // A request that never ends (a frozen service) would leave "Loading" up for good: after 15 s the
  // page says so and offers a retry, which asks again (the late answer is still shown if it comes).
  const loading = shown === null && !error && !list.error;
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    setSlow(false);
    if (!loading) return;
    const timer = setTimeout(() => setSlow(true), LOADING_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, [loading, reload]);

  // After Activate or Pause the button pressed is replaced by the other one: the focus goes to it
  // (not to the page) once the reloaded row shows the new status, which the status line announces.
  const [toggled, setToggled] = useState<{ id: string; name: string; status: 'active' | 'paused'; also: string } | null>(null);
  /** The campaign whose activation is being asked about (it has paused line items: campaignActivation.ts). */
  const [asking, setAsking] = useState<string | null>(null);
  const table = useRef<HTMLTableElement>(null);
  const shownStatus = shown?.find(({ campaign }) => campaign.id === toggled?.id)?.campaign.status;
  useEffect(() => {
    // A question opened meanwhile (Activate pressed within a frame of appearing) keeps the focus.
    if (toggled === null || shownStatus !== toggled.status || asking !== null) return;
    table.current?.querySelector<HTMLButtonElement>(`button[data-campaign="${toggled.id}"]`)?.focus();
  }, [toggled, shownStatus]);

  async function setStatus({ campaign, lineItems }: CampaignLine, status: 'active' | 'paused', answer: 'keep-paused' | 'all' = 'all') {
    setError(null);
    setToggled(null);
    try {
      const also = status === 'active'
        ? await activateCampaign(session, campaign.id, pausedLineItems(lineItems), answer)
        : (await api(session, 'PATCH', `/v1/advertiser/campaigns/${campaign.id}`, { status }), '');
      setToggled({ id: campaign.id, name: campaign.name, status, also });
    } catch (failure) {
      setError(failure);
    } finally {
      setReload((count) => count + 1);
    }
  }
  function activate(line: CampaignLine) {
    if (pausedLineItems(line.lineItems).length > 0) setAsking(line.campaign.id);
    else setStatus(line, 'active');
  }
  function answered(line: CampaignLine, answer: ActivationAnswer) {
    setAsking(null);
    if (answer === null) table.current?.querySelector<HTMLButtonElement>(`button[data-campaign="${line.campaign.id}"]`)?.focus();
    else setStatus(line, 'active', answer);
  }

  return html`
    <p class="actions">${may(session, 'campaigns') && html`<a href="#/compose">Create a campaign</a>`} ${may(session, 'reporting') && html`<a href="#/report">Reports</a>`}</p>
    ${!may(session, 'campaigns') && html`<p class="hint" id="campaigns-permission">${lacking.campaigns}</p>`}
    <${ErrorMessage} error=${error} retry=${() => { setError(null); setReload((count) => count + 1); }} />
    <${ErrorMessage} error=${list.error} retry=${() => setReload((count) => count + 1)} />
    <p role="status" class=${toggled?.also && shownStatus === toggled.status ? 'notice' : 'visually-hidden'}>${toggled && shownStatus === toggled.status ? `${toggled.name} is now ${toggled.status}.${toggled.also}` : ''}</p>
    ${loading && !slow && html`<p role="status">Loading campaigns…</p>`}
    ${loading && slow && html`<div class="error" role="alert">
      <p>The service has not answered in ${LOADING_TIMEOUT_MS / 1000} seconds.</p>
      <button type="button" onClick=${() => setReload((count) => count + 1)}>Retry</button>
    </div>`}
    ${shown?.length === 0 && list.pageNumber === 1 && html`<p>No campaigns yet.${may(session, 'campaigns') && html` <a href="#/compose">Create the first one</a>.`}</p>`}
    ${shown && shown.length > 0 && html`<${TableWrap} label="Campaigns"><table aria-label="Campaigns" ref=${table}>
      <caption class="hint">Oldest first, ${CAMPAIGNS_PER_PAGE} a page. Spend is today's (UTC) in USD; budgets are per line item in their own currency. ${DAILY_BUDGET_SUM} ${BILLING_CEILINGS}</caption>
      <thead><tr><th scope="col">Campaign</th><th scope="col">Status</th><th scope="col" class="num">Spent today</th><th scope="col">Daily budget<span class="hint"> (active line items)</span></th><th scope="col">Line items</th><th scope="col">Actions</th></tr></thead>
      <tbody>${shown.map((line) => { const { campaign, lineItems, spentToday } = line; return html`<tr>
        <th scope="row"><a href=${`#/campaign?id=${campaign.id}`}>${campaign.name}</a><br /><span class="hint">${campaign.brand_name}</span></th>
        <td><span class=${`status status-${campaign.status}`}>${campaign.status}</span></td>
        <td class="num"><${SpentToday} spent=${spentToday} /></td>
        <td>${budgetText(lineItems)}</td>
        <td>${lineItems.length}</td>
        <td><div class="actions">
          ${campaign.status === 'paused' && html`<button type="button" disabled=${!may(session, 'campaigns')} aria-describedby=${may(session, 'campaigns') ? undefined : 'campaigns-permission'} onClick=${() => activate(line)} aria-expanded=${asking === campaign.id} data-campaign=${campaign.id} aria-label=${`Activate ${campaign.name}`}>Activate</button>`}
          ${campaign.status === 'active' && html`<button type="button" class="secondary" disabled=${!may(session, 'campaigns')} aria-describedby=${may(session, 'campaigns') ? undefined : 'campaigns-permission'} onClick=${() => setStatus(line, 'paused')} data-campaign=${campaign.id} aria-label=${`Pause ${campaign.name}`}>Pause</button>`}
          ${may(session, 'reporting') && html`<a href=${`#/report?campaign=${campaign.id}`}>Report<span class="visually-hidden"> for ${campaign.name}</span></a>`}
        </div></td>
      </tr>
      ${asking === campaign.id && campaign.status === 'paused' && html`<tr class="question"><td colspan="6">
        <${ActivationQuestion} campaignName=${campaign.name} paused=${pausedLineItems(lineItems)} onAnswer=${(answer: ActivationAnswer) => answered(line, answer)} />
      </td></tr>`}`; })}</tbody>
    </table><//>`}
    <${Pager} list=${list} label="campaigns" />`;
}
