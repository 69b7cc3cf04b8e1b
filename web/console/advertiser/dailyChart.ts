import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { DailyRow } from '../../../src/reporting/dailyReport.js';
import { coincidingSeries, seriesList } from './coincidingSeries.js';
import { reportNumber } from './breakdownTable.js';

function chartWidth(element: HTMLElement): number {
  return Math.max(280, element.clientWidth);
}

/** An axis from 0 to a little above the largest value (0..1 when every value is 0). */
function fromZero(_plot: uPlot, _min: number | null, max: number | null): [number, number] {
  return [0, max !== null && max > 0 ? max * 1.1 : 1];
}

const axisNumbers = (_plot: uPlot, ticks: number[]) => ticks.map(reportNumber);

/**
 * The legend's values with no day under the pointer (before a hover, after it leaves) and the
 * value of each series for the day under it. One dash for "no value" in every series: uPlot's own
 * for the day is "--", which stood beside the figures' "—" (con45).
 */
const legendValue = (write: (value: number) => string) => (_plot: uPlot, value: number | null) => (value == null ? '—' : write(value));
const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/**
 * Impressions and clicks (left axis, counts) and spend (right axis, USD) per UTC day, drawn by
 * uPlot on a canvas. The table under it has the same numbers for screen readers and keyboards.
 */
export function DailyChart({ rows }: { rows: DailyRow[] }) {
  const container = useRef<HTMLDivElement>(null);
  // The canvas takes its colours when drawn: draw again when the system switches light and dark.
  const [scheme, setScheme] = useState(0);
  useEffect(() => {
    const dark = matchMedia('(prefers-color-scheme: dark)');
    const redraw = () => setScheme((count) => count + 1);
    dark.addEventListener('change', redraw);
    return () => dark.removeEventListener('change', redraw);
  }, []);
  useEffect(() => {
    const element = container.current!;
    const styles = getComputedStyle(document.documentElement);
    const color = (name: string) => styles.getPropertyValue(name).trim();
    const days = rows.map((row) => Date.parse(`${row.date}T00:00:00Z`) / 1000);
    // Series drawn at the same height are drawn narrower each, over the one before (uPlot draws in
    // order): stripes, so that each of their colours shows on the one line, which the note explains.
    const overlapping = coincidingSeries(rows)[0] ?? [];
    const widthOf = (name: string) => (overlapping.includes(name) ? [7, 4, 1.5][overlapping.indexOf(name)]! : 2);
    const plot = new uPlot(
      {
        width: chartWidth(element),
        height: 300,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        // Counts and money are never negative: both axes start at 0, so a day's 61 clicks never sit on
        // the floor of an axis fitted to the data (60..130), where a reader sees none.
        scales: { x: { time: true }, y: { range: fromZero }, usd: { range: fromZero } },
        axes: [
          {
            stroke: color('--fg'),
            grid: { stroke: color('--line') },
            // Daily rows: ticks on whole days (or weeks, months), labelled MM-DD.
            incrs: [86_400, 7 * 86_400, 30 * 86_400],
            values: (_plot, ticks) => ticks.map((tick) => new Date(tick * 1000).toISOString().slice(5, 10)),
          },
          // Written as the tables under the chart write them (2.5, 1,000), not in the browser's
          // language, uPlot's default: a German browser showed "2,5" over a table of 2.63925 (con43).
          { stroke: color('--fg'), grid: { stroke: color('--line') }, label: 'Impressions, clicks', values: axisNumbers },
          { scale: 'usd', side: 1, stroke: color('--fg'), grid: { show: false }, label: 'Spend (USD)', values: axisNumbers },
        ],
        series: [
          // The day as the daily table writes it (uPlot's own adds a time of day, 12:00am).
          { label: 'Day (UTC)', value: legendValue(isoDay) },
          { label: 'Impressions', stroke: '#1f77b4', width: widthOf('Impressions'), value: legendValue(reportNumber) },
          { label: 'Clicks', stroke: '#e8590c', width: widthOf('Clicks'), dash: [6, 4], value: legendValue(reportNumber) },
          { label: 'Spend (USD)', scale: 'usd', stroke: '#2f9e44', width: widthOf('Spend'), value: legendValue((value) => `$${value.toFixed(2)}`) },
        ],
      },
      [days, rows.map((row) => row.impressions), rows.map((row) => row.clicks), rows.map((row) => row.spend_usd)],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: chartWidth(element), height: 300 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [rows, scheme]);
  const overlaps = coincidingSeries(rows);
  return html`<figure class="chart">
    <div ref=${container} role="img" aria-label="Daily impressions, clicks and spend; the same numbers are in the daily table below"></div>
    ${overlaps.length > 0 && html`<figcaption class="hint" data-testid="chart-overlap">${overlaps.map((group) =>
      `${seriesList(group)} are drawn at the same height every day here, one over the other (as stripes of their colours); the daily table below has each figure.`).join(' ')}</figcaption>`}
  </figure>`;
}
