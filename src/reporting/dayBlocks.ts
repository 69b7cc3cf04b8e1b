import { addDays, daysBetween } from '../utcDays.js';

/** The block lengths of reach_blocks_v1 and breakdown_blocks_v1 (clickhouse/0008, 0009), longest first. */
const SPANS = [64, 32, 16, 8, 4, 2, 1] as const;
const EPOCH = '1970-01-01';

export interface DayBlock {
  spanDays: number;
  start: string;
}

/**
 * The aligned blocks that exactly cover the UTC days dateFrom..dateTo: from the first day on, each
 * time the longest block that starts there (its day number divisible by its length) and ends
 * inside the window. A 92-day window takes at most 12 blocks.
 */
export function dayBlocks(dateFrom: string, dateTo: string): DayBlock[] {
  const blocks: DayBlock[] = [];
  const last = daysBetween(EPOCH, dateTo);
  for (let day = daysBetween(EPOCH, dateFrom); day <= last; ) {
    const spanDays = SPANS.find((span) => day % span === 0 && day + span - 1 <= last)!;
    blocks.push({ spanDays, start: addDays(EPOCH, day) });
    day += spanDays;
  }
  return blocks;
}

/** The blocks as the two array parameters of `(span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})`. */
export function blockParams(blocks: DayBlock[]): { spans: number[]; starts: string[] } {
  return { spans: blocks.map((block) => block.spanDays), starts: blocks.map((block) => block.start) };
}
