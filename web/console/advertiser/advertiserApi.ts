import type { Permission } from '../session.js';
import type { PerformanceMetrics } from '../../../src/reporting/performanceMetrics.js';

// The shapes of the advertiser API the console reads, as openapi.yaml names them: AdvertiserMe,
// Campaign and LineItem, each with only the fields the console uses. The reporting rows are the
// server's own types (src/reporting/, imported as types only: nothing of the server is bundled).

/** GET /v1/advertiser/me: who signed in, and what the key may do. */
export interface AdvertiserMe {
  organization: { id: string; name: string };
  api_key: { id: string; permissions: Permission[] };
}

export interface Campaign {
  id: string;
  name: string;
  brand_name: string;
  user_id: string;
  status: 'active' | 'paused' | 'completed';
  objective: string | null;
  created_at: string;
}

interface Budget {
  daily: number;
  currency: string;
  lifetime: number | null;
  pacing: 'even' | 'asap';
}

interface IncludeExclude {
  include?: string[];
  exclude?: string[];
}

/** PUT targeting replaces the whole object: the console sends back every part it does not edit (lineItemEdits.ts). */
export interface Targeting {
  keywords?: IncludeExclude;
  placements?: IncludeExclude;
  languages?: string[];
  countries?: IncludeExclude;
  semantic?: { enabled: boolean; min_similarity?: number };
  dayparts?: { timezone: string; windows: { days: string[]; start: string; end: string }[] };
}

/** At most `impressions` valid impressions per user in each `per` window (openapi.yaml FrequencyCap). */
export interface FrequencyCap {
  impressions: number;
  per: 'hour' | 'day' | 'week' | 'lifetime';
}

interface Creative {
  id: string;
  title: string;
  body: string;
  cta: string;
  destination_url: string;
  image_url: string | null;
}

export interface LineItem {
  id: string;
  campaign_id: string;
  title: string;
  status: string;
  budget: Budget | null;
  bids: { bid_type: string; bid_value: number } | null;
  targeting: Targeting;
  creatives: Creative[];
  /** null when uncapped; set and cleared with PATCH line-items/{id} (frequency_cap). */
  frequency_cap: FrequencyCap | null;
  /** Why an active line item no longer delivers (openapi.yaml LineItem.delivery_stopped_by). */
  delivery_stopped_by: 'lifetime_budget' | 'monthly_budget' | null;
}

/** The spec's metrics of a reporting row, in the order the table shows them. */
export const metricColumns = [
  ['impressions', 'Impressions'],
  ['clicks', 'Clicks'],
  ['conversions', 'Conversions'],
  ['spend_usd', 'Spend (USD)'],
  ['revenue_usd', 'Revenue (USD)'],
  ['ctr', 'CTR %'],
  ['cpc_usd', 'CPC (USD)'],
  ['cpa_usd', 'CPA (USD)'],
  ['cvr', 'CVR %'],
  ['ecpm_usd', 'eCPM (USD)'],
  ['roas', 'ROAS'],
] as const satisfies readonly (readonly [keyof PerformanceMetrics, string])[];
