import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import { queryDetails, queryParams, type QuerySchema } from '../http/queryParams.js';
import { cursorParam, refineOneStart } from '../http/keysetPaging.js';
import { addDays, daysBetween, isCalendarDate, todayUtc } from '../utcDays.js';

/** The spec's limits. The window is date_to minus date_from in days, the spec's own measure (see docs/reporting.md). */
const MAX_WINDOW_DAYS = 92;
const DEFAULT_WINDOW_DAYS = 30;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** CSV is for exports: the same paging, with pages up to this size, streamed in batches. */
const MAX_CSV_LIMIT = 100_000;

export type ReportFormat = 'json' | 'csv';

/** ClickHouse's Date type covers these days; a date outside could not be compared with the rollups. */
const EARLIEST_DATE = '1970-01-01';
const LATEST_DATE = '2149-06-06';

const date = z
  .string()
  .refine(isCalendarDate, 'must be a calendar date written YYYY-MM-DD')
  .refine((value) => value >= EARLIEST_DATE && value <= LATEST_DATE, `must be between ${EARLIEST_DATE} and ${LATEST_DATE}`);

/**
 * The spec sets no maximum for offset: any whole number that a JavaScript number holds exactly
 * (up to 2^53 - 1) is accepted; Postgres takes it as bigint and a page past the end is empty.
 */
const wholeNumber = z
  .string()
  .regex(/^\d+$/, 'must be a whole number')
  .transform(Number)
  .refine(Number.isSafeInteger, `must be at most ${Number.MAX_SAFE_INTEGER}`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Comma-separated (or repeated) campaign ids. Entries that are not UUIDs are dropped, as the spec
 * says; duplicates too. No entry at all (absent, or only commas) is no filter (null); entries that
 * were all invalid are a filter that matches nothing ([]), never "every campaign".
 */
const campaignIds = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => {
    const entries = [value ?? []]
      .flat()
      .flatMap((part) => part.split(','))
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    if (entries.length === 0) return null;
    return [...new Set(entries.filter((entry) => UUID.test(entry)).map((entry) => entry.toLowerCase()))];
  });

/**
 * The window, paging and format every report takes; advertiser reports add campaign_ids. The dates'
 * defaults are filled in by withWindowDefaults after checkWindow, so that a window refused over a
 * default says which date was assumed.
 */
const windowOnlyParams = {
  date_from: date.optional(),
  date_to: date.optional(),
  limit: wholeNumber.default(DEFAULT_LIMIT),
  offset: wholeNumber.default(0),
  format: z.enum(['json', 'csv']),
};

const windowParams = { ...windowOnlyParams, campaign_ids: campaignIds };

type Window = { date_from?: string | undefined; date_to?: string | undefined };
type WindowParams = Window & { limit: number; format: ReportFormat };

const defaultDateFrom = () => addDays(todayUtc(), -DEFAULT_WINDOW_DAYS);

/** The window's dates, each defaulted when absent: date_from today − 30, date_to today (UTC). */
function withWindowDefaults<Params extends Window>(params: Params): Omit<Params, keyof Window> & { date_from: string; date_to: string } {
  return { ...params, date_from: params.date_from ?? defaultDateFrom(), date_to: params.date_to ?? todayUtc() };
}

/** Rules across parameters: a forward window of at most 92 days, and a page size the format allows. */
function checkWindowAndLimit(params: WindowParams, ctx: z.RefinementCtx): void {
  checkWindow(params, ctx);
  const maxLimit = params.format === 'csv' ? MAX_CSV_LIMIT : MAX_LIMIT;
  if (params.limit < 1 || params.limit > maxLimit) {
    ctx.addIssue({ code: 'custom', path: ['limit'], message: `must be between 1 and ${maxLimit}` });
  }
}

/**
 * A forward window of at most 92 days. Judged only between two valid dates: a bad date (2026-02-30,
 * a repeated parameter) is reported as such, not as a window it does not make.
 */
function checkWindow(params: Window, ctx: z.RefinementCtx): void {
  const { date_from: from, date_to: to } = withWindowDefaults(params);
  if (!date.safeParse(from).success || !date.safeParse(to).success) return;
  const days = daysBetween(from, to);
  if (days < 0) {
    // A caller who sent one date is told which the other defaulted to, not only that "date_from" was later.
    const message =
      params.date_from === undefined
        ? `${to} is before date_from, which defaults to today − ${DEFAULT_WINDOW_DAYS} (${from}): send date_from too`
        : params.date_to === undefined
          ? `defaults to today (${to}), which is before date_from ${from}: send date_to too`
          : 'must not be before date_from';
    ctx.addIssue({ code: 'custom', path: ['date_to'], message });
  } else if (days > MAX_WINDOW_DAYS) {
    ctx.addIssue({
      code: 'custom',
      path: ['date_to'],
      message: `window is ${days} days (date_to minus date_from); at most ${MAX_WINDOW_DAYS} are allowed`,
    });
  }
}

const campaignReportSchema = queryParams({
  ...windowParams,
  breakdown: z.enum(['campaign', 'daily', 'line_item', 'creative', 'placement', 'country', 'hourly']).default('campaign'),
  cursor: cursorParam(z.uuid()).optional(),
})
  .superRefine(checkWindowAndLimit)
  .superRefine(refineOneStart)
  .superRefine((params, ctx) => {
    // Only the campaign breakdown pages rows of a stored, keyed table; the others are built whole and cut in memory.
    if (params.cursor && params.breakdown !== 'campaign') {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'only the campaign breakdown pages by cursor; use offset' });
    }
  })
  .transform(withWindowDefaults);

const trafficQualitySchema = queryParams(windowParams).superRefine(checkWindowAndLimit).transform(withWindowDefaults);

const publisherReportSchema = queryParams({ ...windowOnlyParams, breakdown: z.enum(['placement', 'daily']).default('placement') })
  .superRefine(checkWindowAndLimit)
  .transform(withWindowDefaults);
const operatorReportSchema = queryParams(windowOnlyParams).superRefine(checkWindowAndLimit).transform(withWindowDefaults);

/** The audit export streams a whole window of one campaign: no paging; NDJSON or CSV. */
const eventExportSchema = queryParams({
  campaign_id: z.string().regex(UUID, 'must be a campaign id (UUID)').transform((id) => id.toLowerCase()),
  date_from: windowOnlyParams.date_from,
  date_to: windowOnlyParams.date_to,
  format: z.enum(['ndjson', 'csv']),
})
  .superRefine(checkWindow)
  .transform(withWindowDefaults);

export type CampaignReportParams = z.output<typeof campaignReportSchema>;
export type EventExportParams = z.output<typeof eventExportSchema>;
export type PublisherReportParams = z.output<typeof publisherReportSchema>;
export type OperatorReportParams = z.output<typeof operatorReportSchema>;
export type TrafficQualityParams = z.output<typeof trafficQualitySchema>;

/**
 * Query parameters of GET /v1/advertiser/reporting/campaigns. `negotiatedFormat` comes from the
 * Accept header; a `format` parameter overrides it. Any bad parameter is 400 bad_request, listing each.
 */
export function parseCampaignReportParams(query: unknown, negotiatedFormat: ReportFormat): CampaignReportParams {
  return parseParams(campaignReportSchema, query, negotiatedFormat);
}

/** Query parameters of GET /v1/advertiser/reporting/traffic-quality: the same, without breakdown. */
export function parseTrafficQualityParams(query: unknown, negotiatedFormat: ReportFormat): TrafficQualityParams {
  return parseParams(trafficQualitySchema, query, negotiatedFormat);
}

/** Query parameters of GET /v1/publisher/reporting: the window, paging and format, breakdown placement or daily. */
export function parsePublisherReportParams(query: unknown, negotiatedFormat: ReportFormat): PublisherReportParams {
  return parseParams(publisherReportSchema, query, negotiatedFormat);
}

/** Query parameters of GET /v1/admin/reporting: the window, paging (over days) and format. */
export function parseOperatorReportParams(query: unknown, negotiatedFormat: ReportFormat): OperatorReportParams {
  return parseParams(operatorReportSchema, query, negotiatedFormat);
}

/** Query parameters of GET /v1/advertiser/reporting/events; `negotiatedFormat` from the Accept header. */
export function parseEventExportParams(query: unknown, negotiatedFormat: 'ndjson' | 'csv'): EventExportParams {
  return parseParams(eventExportSchema, query, negotiatedFormat);
}

/** The one parameter a report takes more than once (as the spec allows, like a comma-separated list). */
const REPEATABLE = new Set(['campaign_ids']);

function parseParams<Schema extends z.ZodPipe<QuerySchema>>(schema: Schema, query: unknown, negotiatedFormat: string): z.output<Schema> {
  const params = { format: negotiatedFormat, ...(query as object) };
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  // A parameter given twice (limit=1&limit=2) arrives as an array: say so, not zod's "expected string, received array".
  const repeated = Object.entries(params)
    .filter(([name, value]) => Array.isArray(value) && !REPEATABLE.has(name))
    .map(([name]) => name);
  const details = [
    ...repeated.map((name) => ({ path: name, message: 'is given more than once' })),
    ...queryDetails(result.error).filter((detail) => !repeated.includes(detail.path)),
  ];
  throw new ApiError('bad_request', details.map((detail) => `${detail.path}: ${detail.message}`).join('; '), details);
}
