import type { FastifyBaseLogger } from 'fastify';
import type { ClickHouse } from '../store/clickhouse.js';
import { CAMPAIGN_IDS_PER_QUERY } from './reportCampaigns.js';
import { keepTodayWindows, type TodayWindow } from './reachWindows.js';

/**
 * The kept reach rows of windows reaching today that reports leave to be written after they answer
 * (reach_today_windows_v1, src/reporting/reachBlocks.ts). A report merges the reach of a campaign
 * with new impressions itself and answers with it; keeping that union for the next report is work
 * the answer never needs, so it waits here instead of in the request. One write runs at a time (on
 * embedded chdb, parameterized queries run one at a time anyway, so a pile of writes would hold up
 * the next reports' reads); the campaigns of one window asked for while a write runs are written
 * together after it, once. A failed write is logged and counted and changes nothing else: the next
 * report finds the campaign's row short or missing and merges its reach again, as it did this time.
 *
 * A campaign queued for a window less than `quietMs` ago (a minute) is not queued again for it:
 * short again already, it had new impressions between two reports that close together, and a row
 * written now would most likely be short again at the next one. Its reports merge its reach, as
 * every report did before the table, without a write each; after the minute it is written again.
 */
export class KeptReachWrites {
  readonly #waiting = new Map<string, { window: TodayWindow; campaignIds: Set<string> }>();
  /** When each window's campaign was last queued, oldest first (a campaign queued again moves to the end). */
  readonly #queuedAt = new Map<string, number>();
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(
    private readonly ch: ClickHouse,
    private readonly log: FastifyBaseLogger,
    private readonly failures: { inc(): void },
    private readonly quietMs = 60_000,
  ) {}

  /** Queues the kept rows of the window for the given campaigns; returns at once. */
  keep(window: TodayWindow, campaignIds: string[]): void {
    if (this.#closed) return;
    const now = Date.now();
    for (const [queued, at] of this.#queuedAt) {
      if (at > now - this.quietMs) break;
      this.#queuedAt.delete(queued);
    }
    const key = `${window.level} ${window.dateFrom} ${window.dateTo} ${window.today}`;
    const due = campaignIds.filter((id) => !this.#queuedAt.has(`${key} ${id}`));
    if (due.length === 0) return;
    for (const id of due) this.#queuedAt.set(`${key} ${id}`, now);
    const waiting = this.#waiting.get(key);
    if (waiting) due.forEach((id) => waiting.campaignIds.add(id));
    else this.#waiting.set(key, { window, campaignIds: new Set(due) });
    this.#running ??= this.#writeWaiting();
  }

  /** Resolves once every write queued so far (and any queued meanwhile) is done or has failed. */
  async settled(): Promise<void> {
    await this.#running;
  }

  /** Drops the writes not started and waits for the one running, so no query reaches a closed store. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#waiting.clear();
    this.#queuedAt.clear();
    await this.#running;
  }

  async #writeWaiting(): Promise<void> {
    while (this.#waiting.size > 0) {
      const [key, { window, campaignIds }] = this.#waiting.entries().next().value!;
      this.#waiting.delete(key);
      const ids = [...campaignIds];
      for (let start = 0; start < ids.length && !this.#closed; start += CAMPAIGN_IDS_PER_QUERY) {
        const chunk = ids.slice(start, start + CAMPAIGN_IDS_PER_QUERY);
        try {
          await keepTodayWindows(this.ch, window, chunk);
        } catch (error) {
          this.failures.inc();
          this.log.warn({ err: error, ...window, campaigns: chunk.length }, 'keeping the reach of a window reaching today failed; the next report merges it again');
        }
      }
    }
    // In the same turn as the loop's last check: a keep() from now on starts a new run.
    this.#running = undefined;
  }
}
