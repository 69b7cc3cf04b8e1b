import type { DailyRow } from '../../../src/reporting/dailyReport.js';

const seriesNames = ['Impressions', 'Clicks', 'Spend'] as const;

/** Heights closer than this share of the plot (about 3 px of 300) draw as one line. */
const SAME_HEIGHT = 0.01;

/**
 * The series of the daily chart (dailyChart.ts) drawn over one another on every day, as the chart
 * scales them (from 0: counts on one axis, spend on its own), named for a note under the chart:
 * lines that coincide hide each other (con39: 3 impressions, 3 clicks and 1.50 USD a day drew one
 * green line), and a reader would take the hidden ones for missing. [] when every series shows.
 */
export function coincidingSeries(rows: DailyRow[]): string[][] {
  const top = (values: number[]) => {
    const max = Math.max(0, ...values);
    return max > 0 ? max * 1.1 : 1;
  };
  const counts = top(rows.flatMap((row) => [row.impressions, row.clicks]));
  const usd = top(rows.map((row) => row.spend_usd));
  const heights = [
    rows.map((row) => row.impressions / counts),
    rows.map((row) => row.clicks / counts),
    rows.map((row) => row.spend_usd / usd),
  ];
  const groups: number[][] = [];
  heights.forEach((line, index) => {
    const same = groups.find((group) => line.every((height, day) => Math.abs(height - heights[group[0]!]![day]!) < SAME_HEIGHT));
    if (same) same.push(index);
    else groups.push([index]);
  });
  return rows.length === 0 ? [] : groups.filter((group) => group.length > 1).map((group) => group.map((index) => seriesNames[index]!));
}

/** "Impressions and clicks", "Impressions, clicks and spend". */
export function seriesList(series: string[]): string {
  const words = series.map((name, index) => (index === 0 ? name : name.toLowerCase()));
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
