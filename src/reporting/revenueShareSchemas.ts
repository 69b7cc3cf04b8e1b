import { z } from 'zod';
import { isCalendarDate, todayUtc } from '../utcDays.js';

/** PUT /v1/admin/publishers/{publisher_id}/revenue-share; an unknown field is 422, as on every route. */
export const revenueShareBody = z.strictObject({
  revenue_share: z
    .number()
    .min(0)
    .max(1)
    .refine((share) => Number.isInteger(Math.round(share * 1e6)) && Math.abs(share * 1e6 - Math.round(share * 1e6)) < 1e-6, 'at most 6 decimals'),
  /** The first UTC day it applies to; today when absent. Earlier days keep their share. */
  effective_from: z.string().refine(isCalendarDate, 'must be a calendar date written YYYY-MM-DD').default(() => todayUtc()),
});
