import type { SqlExecutor } from '../store/postgres.js';
import type { ReportRequest } from './reportRequest.js';
import { organizationCampaignPage, type CampaignPage, type ReportCampaign } from './reportCampaigns.js';
import type { CampaignAttributes } from './campaignAttributes.js';
import { deletedCampaignsWithEvents } from './deletedCampaigns.js';
import type { KeysetPosition } from '../http/keysetPaging.js';
import { performanceMetricNames, type PerformanceMetrics } from './performanceMetrics.js';
import type { ReachStores } from './reachBlocks.js';
import type { CampaignFigures, KeptCampaignFigures } from './keptCampaignFigures.js';

export interface CampaignRow extends PerformanceMetrics {
  campaign_id: string;
  campaign_name: string;
  campaign_status: string;
  brand_name: string;
  objective: string | null;
  /** Distinct users who saw a valid impression over the window (approximate, see docs/reporting.md). */
  unique_users: number;
  /** When the campaign was deleted, null while it exists: a deleted campaign is shown, as completed, over windows where it has events. */
  campaign_deleted_at: string | null;
}

export const campaignRowColumns = [
  'campaign_id',
  'campaign_name',
  'campaign_status',
  'brand_name',
  'objective',
  ...performanceMetricNames,
  'unique_users',
  'campaign_deleted_at',
] as const satisfies ReadonlyArray<keyof CampaignRow>;

/** Campaigns per round trip: one Postgres page and, for the campaigns whose figures are not kept, the ClickHouse queries. */
const BATCH_SIZE = 1000;

/** Where a campaign report stopped: the position of its last campaign, for the next page's cursor. */
export interface ReportProgress {
  last?: KeysetPosition;
}

/**
 * The campaign breakdown: one row per campaign of the organization, in the stable order of
 * organizationCampaigns (their attributes remembered, organizationCampaignPage), campaigns without events included as zero rows. Pages are cut in Postgres
 * and only that page's ids go to ClickHouse, so the cost follows the page, not the organization.
 * Yields batches so that a large CSV export streams instead of building up in memory. The first
 * batch starts at the request's offset or cursor; each later one continues after the last campaign
 * of the batch before (keyset), so a 100,000-row export never re-reads what it sent, and a campaign
 * deleted during the export shifts nothing.
 */
export async function* campaignReport(
  stores: { db: SqlExecutor; campaignAttributes: CampaignAttributes; campaignFigures: KeptCampaignFigures } & ReachStores,
  request: ReportRequest,
  progress: ReportProgress = {},
): AsyncGenerator<CampaignRow[]> {
  const deleted = await deletedCampaignsWithEvents(stores, request);
  let page: CampaignPage = { limit: 0, offset: request.offset, after: request.cursor };
  for (let done = 0; done < request.limit; ) {
    const size = Math.min(BATCH_SIZE, request.limit - done);
    const { campaigns, last } = await organizationCampaignPage(
      stores.db,
      stores.campaignAttributes,
      request.organizationId,
      request.campaignIds,
      { ...page, limit: size },
      deleted,
    );
    if (campaigns.length === 0 || last === undefined) return;
    const figures = await stores.campaignFigures.figures(
      stores,
      campaigns.map((campaign) => campaign.id),
      request.dateFrom,
      request.dateTo,
    );
    progress.last = last;
    yield campaigns.map((campaign, index) => campaignRow(campaign, figures[index]!));
    if (campaigns.length < size) return;
    done += campaigns.length;
    page = { limit: 0, offset: 0, after: progress.last };
  }
}

/**
 * Each kept row by its figures (the same object while KeptCampaignFigures keeps them) and its
 * campaign (the same while CampaignAttributes remembers it), and each row's JSON: a repeat of a
 * 1,000-row page joins the texts of the rows it answered before instead of serializing 415 kB again
 * (JSON.stringify, then the text's UTF-8 length and encoding: about 3.5 ms of the thread that
 * answers requests; bench/README "Report: session 36"). Weak: a
 * row lives as long as its figures are kept.
 */
const keptRows = new WeakMap<CampaignFigures, { campaign: Omit<ReportCampaign, 'sort_time'>; row: CampaignRow }>();
const rowTexts = new WeakMap<CampaignRow, Buffer>();

/** The JSON of a row of campaignReport, as UTF-8: kept with the row. */
export function campaignRowJson(row: CampaignRow): Buffer {
  let text = rowTexts.get(row);
  if (text === undefined) rowTexts.set(row, (text = Buffer.from(JSON.stringify(row))));
  return text;
}

function campaignRow(campaign: Omit<ReportCampaign, 'sort_time'>, figures: CampaignFigures): CampaignRow {
  const kept = keptRows.get(figures);
  if (kept?.campaign === campaign) return kept.row;
  const row: CampaignRow = {
    campaign_id: campaign.id,
    campaign_name: campaign.name,
    campaign_status: campaign.status,
    brand_name: campaign.brand_name,
    objective: campaign.objective,
    ...figures.metrics,
    unique_users: figures.uniqueUsers,
    campaign_deleted_at: campaign.deleted_at,
  };
  keptRows.set(figures, { campaign, row });
  return row;
}
