import type { KeysetPosition } from '../http/keysetPaging.js';

/** What every report is asked for, after the query parameters were checked. */
export interface ReportRequest {
  organizationId: string;
  /** null: every campaign of the organization. */
  campaignIds: string[] | null;
  /** Inclusive UTC dates, YYYY-MM-DD. */
  dateFrom: string;
  dateTo: string;
  limit: number;
  offset: number;
  /** The campaign breakdown's keyset position: the page starts after that campaign. */
  cursor?: KeysetPosition;
}
