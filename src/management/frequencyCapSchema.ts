import { z } from 'zod';

export const frequencyCapWindows = ['hour', 'day', 'week', 'lifetime'] as const;
export type FrequencyCapWindow = (typeof frequencyCapWindows)[number];

/**
 * At most `impressions` valid impressions per user in each `per` window (UTC: the clock hour, the
 * day, the week from Monday 00:00, or ever). null removes the cap.
 */
export const frequencyCapSchema = z.strictObject({
  impressions: z.number().int().min(1).max(1_000_000),
  per: z.enum(frequencyCapWindows),
});
export type FrequencyCap = z.output<typeof frequencyCapSchema>;
