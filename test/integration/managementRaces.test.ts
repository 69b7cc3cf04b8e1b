import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { createAdvertiser } from '../helpers/factories.js';
import { asAdvertiser, composeCampaign } from '../helpers/managementFactories.js';
import { startAppOnPostgresServer, type AppOnPostgresServer } from '../helpers/appOnPostgresServer.js';
import { unavailableReason } from '../helpers/postgresServer.js';
import type { TestContext } from '../helpers/testApp.js';

/**
 * Management writes racing a DELETE on a PostgreSQL server, where (unlike embedded PGlite, one
 * connection) another transaction can commit between two statements of a request. The DELETE is
 * held open on a connection of the test's own, so the interleaving is chosen, not hoped for.
 */
if (unavailableReason) console.warn(unavailableReason);

let onServer: AppOnPostgresServer | undefined;
let ctx: TestContext;

describe.skipIf(unavailableReason !== undefined)('duplicate racing a DELETE on a PostgreSQL server', () => {
  beforeAll(async () => {
    onServer = await startAppOnPostgresServer('races-');
    ctx = onServer.ctx;
  });

  afterAll(async () => {
    await onServer?.close();
  });

  it('answers 404 (not a 500) when the campaign is deleted while the duplicate runs, and copies nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const { campaignId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);

    const deleter = new pg.Client({ connectionString: onServer!.server.url });
    // Watches pg_stat_activity from outside the DELETE's transaction: inside it, the set of backends
    // is read once, so a connection the app's pool opened for the duplicate after the first look was
    // never seen (the duplicate waited, unseen, until the timeout: CI at 71742b3).
    const observer = new pg.Client({ connectionString: onServer!.server.url });
    await deleter.connect();
    await observer.connect();
    try {
      await deleter.query('BEGIN');
      // SHARE lets the duplicate read campaigns but holds its INSERT until the DELETE has committed:
      // the moment a duplicate that read its source unlocked would copy a campaign that is gone.
      await deleter.query('LOCK TABLE campaigns IN SHARE MODE');
      await deleter.query('DELETE FROM campaigns WHERE id = $1', [campaignId]);
      let answered = false;
      const duplicate = api('POST', `/v1/advertiser/campaigns/${campaignId}/duplicate`, {}).finally(() => {
        answered = true;
      });
      // The duplicate waits for the DELETE: on the campaign's row, or (reading its source unlocked) at its INSERT.
      // The lock is held until the COMMIT below, so it must end up waiting; one that never does fails,
      // with every connection's state in the message.
      try {
        await eventually(async () => {
          if (answered) return true;
          const { rows } = await observer.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
          return rows.length > 0 ? true : undefined;
        }, 'the duplicate to wait for the DELETE or answer');
      } catch (error) {
        // What every connection but the observer's was doing then: where the duplicate was instead.
        const { rows } = await observer.query(
          `SELECT pid, state, wait_event_type, wait_event, now() - query_start AS running, left(query, 200) AS query
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        throw new Error(`${(error as Error).message}; other connections: ${JSON.stringify(rows)}`);
      }
      await deleter.query('COMMIT');

      const response = await duplicate;
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json().error.code).toBe('not_found');
      const { rows } = await ctx.stores.db.query('SELECT id FROM campaigns WHERE user_id = $1', [advertiser.user.id]);
      expect(rows).toEqual([]);
    } finally {
      await deleter.end();
      await observer.end();
    }
  });
});
