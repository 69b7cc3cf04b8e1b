import type { Postgres, SqlExecutor } from '../store/postgres.js';
import { jsonTimeSql } from '../store/timestampText.js';
import type { PagedCampaign, RememberedAttributes, ReportCampaign } from './reportCampaigns.js';

/** What a report shows of a campaign besides its place in the page and its figures. */
type Attributes = Pick<ReportCampaign, 'name' | 'status' | 'brand_name' | 'objective' | 'deleted_at'>;
/** A campaign with its attributes, as `of` answers it: the same object while remembered (campaignReport.ts keeps its row's JSON by it). */
type Campaign = Omit<ReportCampaign, 'sort_time'>;

/** Past this many campaigns the memory starts again (a bound, not a tuning knob). */
const MAX_KEPT = 100_000;

/**
 * The name, status, brand, objective and deletion time of report campaigns, remembered until any
 * catalog change, where Postgres notifies (embedded PGlite: every write is this process's own, and
 * every UPDATE or DELETE of a campaign logs a catalog change and sends NOTIFY catalog_changes at its
 * commit, migrations/0008, 0010, 0012). A new campaign is a new id, read when first shown; a deleted
 * one is a DELETE, and is shown from its tombstone (kept apart from its live row's, under its own
 * key). Building these five fields as JSON was about 6 of the 1,000-row page's 9 ms in PGlite; the
 * page itself (which campaigns, in which order: tenancy, filters, offset or cursor) is still read
 * from Postgres on every report. On a Postgres server (no notifications here: other instances
 * write too) every page reads them. Modelled on notifiedCache.ts, for a page of keys at once.
 */
export class CampaignAttributes implements RememberedAttributes {
  readonly #kept = new Map<string, Campaign>();
  #subscribed = false;
  /** Bumped by every notification. */
  #generation = 0;

  constructor(db: SqlExecutor) {
    const { listen } = db as Partial<Postgres>;
    listen
      ?.call(db, 'catalog_changes', () => {
        this.#generation += 1;
        this.#kept.clear();
      })
      .then(
        () => {
          this.#subscribed = true;
        },
        () => undefined, // Without the subscription every page reads the attributes.
      );
  }

  /**
   * The page's campaigns with their attributes, in its order; those not remembered are read in one
   * query. Undefined when a campaign of the page has none by then (deleted or purged since the page's read).
   */
  async of(db: SqlExecutor, page: PagedCampaign[]): Promise<Campaign[] | undefined> {
    const missing = page.filter((campaign) => !this.#kept.has(keyOf(campaign)));
    const before = this.#generation;
    const read = missing.length === 0 ? new Map<string, Campaign>() : await readAttributes(db, missing);
    if (this.#subscribed && this.#generation === before) {
      if (this.#kept.size + read.size > MAX_KEPT) this.#kept.clear();
      for (const [key, campaign] of read) this.#kept.set(key, campaign);
    }
    const campaigns: Campaign[] = [];
    for (const paged of page) {
      const key = keyOf(paged);
      const campaign = read.get(key) ?? this.#kept.get(key);
      if (campaign === undefined) return undefined;
      campaigns.push(campaign);
    }
    return campaigns;
  }
}

function keyOf(campaign: Pick<PagedCampaign, 'id' | 'gone'>): string {
  return campaign.gone ? `${campaign.id} gone` : campaign.id;
}

/** The attributes of the given campaigns: live ones from campaigns, gone ones from their tombstones (as completed). */
async function readAttributes(db: SqlExecutor, campaigns: PagedCampaign[]): Promise<Map<string, Campaign>> {
  const { rows } = await db.query<{ attributes: string }>(
    `SELECT coalesce(json_agg(a), '[]')::text AS attributes FROM (
       SELECT c.id, false AS gone, c.name, c.status, c.brand_name, c.objective, NULL AS deleted_at
         FROM campaigns c WHERE c.id = ANY ($1::uuid[])
       UNION ALL
       SELECT gone.id, true, gone.name, 'completed', gone.brand_name, gone.objective, ${jsonTimeSql('gone.deleted_at')}
         FROM deleted_campaigns gone WHERE gone.id = ANY ($2::uuid[])
     ) a`,
    [campaigns.filter((campaign) => !campaign.gone).map((campaign) => campaign.id), campaigns.filter((campaign) => campaign.gone).map((campaign) => campaign.id)],
  );
  const read = JSON.parse(rows[0]!.attributes) as Array<Attributes & { id: string; gone: boolean }>;
  return new Map(read.map(({ id, gone, ...attributes }) => [keyOf({ id, gone }), { id, ...attributes }]));
}
