import type { FastifyInstance } from 'fastify';
import { runSoonAfterListening, startPeriodicTask } from '../periodicTask.js';
import type { SqlExecutor } from '../store/postgres.js';
import { KEPT_HOURS, type CreateKeys } from './createOnce.js';

/**
 * A table of create keys (createOnce.ts): the advertisers' `idempotent_creates` (migrations/0021)
 * and the operators' `admin_idempotent_creates` (0022) differ only in these names, the caller's
 * scope and how an answer is kept, so the claim's statements and the prune are written once, here.
 */
export interface CreateKeyTable {
  name: string;
  /** The scope's columns, before the key's in the primary key (none: one scope for the whole table). */
  scopeColumns: readonly string[];
  keyColumn: string;
  answerColumn: string;
  /** The kept answer's status column, where the table has one (always 201: only a create is kept). */
  statusColumn?: string;
}

/** How a table keeps a key and its answer: as sent, or hashed and sealed (operatorCreateKeys.ts). */
export interface KeptAs<Stored> {
  /** The key column's value for the Idempotency-Key. */
  key(key: string): unknown;
  seal(key: string, answer: string): Stored;
  open(key: string, stored: Stored): string;
}

/** The keys of one scope (`scope`: the values of `table.scopeColumns`) in `table`. */
export function keysIn<Stored>(table: CreateKeyTable, scope: readonly unknown[], keptAs: KeptAs<Stored>): CreateKeys {
  const columns = [...table.scopeColumns, table.keyColumn];
  // $1..$n: the scope's values, then the key's.
  const where = columns.map((column, i) => `${column} = $${i + 1}`).join(' AND ');
  const next = columns.length + 1;
  const values = (key: string) => [...scope, keptAs.key(key)];
  return {
    async claim(tx, key, digest) {
      // An expired key is free again: deleted here, not only by the hourly prune, so it never answers
      // an old request's answer.
      await tx.query(`DELETE FROM ${table.name} WHERE ${where} AND created_at <= now() - make_interval(hours => $${next})`, [...values(key), KEPT_HOURS]);
      const claimed = await tx.query(
        `INSERT INTO ${table.name} (${columns.join(', ')}, request_sha256) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}, $${next})
         ON CONFLICT (${columns.join(', ')}) DO NOTHING RETURNING 1`,
        [...values(key), digest],
      );
      if (claimed.rows.length > 0) return 'claimed';
      // A statement of its own: it sees the row committed while the INSERT waited (READ COMMITTED).
      const { rows } = await tx.query<{ request_sha256: Uint8Array; answer: Stored | null }>(
        `SELECT request_sha256, ${table.answerColumn} AS answer FROM ${table.name} WHERE ${where}`,
        values(key),
      );
      const stored = rows[0]?.answer ?? undefined;
      return { requestSha256: rows[0]?.request_sha256 ?? new Uint8Array(), answer: stored === undefined ? undefined : () => keptAs.open(key, stored) };
    },
    async keep(tx, key, answer) {
      const status = table.statusColumn === undefined ? '' : `${table.statusColumn} = 201, `;
      await tx.query(`UPDATE ${table.name} SET ${status}${table.answerColumn} = $${next} WHERE ${where}`, [...values(key), keptAs.seal(key, answer)]);
    },
  };
}

/** Deletes the table's keys older than KEPT_HOURS. */
export async function pruneCreateKeys(db: SqlExecutor, table: CreateKeyTable): Promise<void> {
  await db.query(`DELETE FROM ${table.name} WHERE created_at <= now() - make_interval(hours => $1)`, [KEPT_HOURS]);
}

/**
 * Prunes the table every hour and once soon after `app` listens (an instance restarted more often
 * than hourly would otherwise never delete a key, nor the sealed secrets kept with the operators').
 * Every instance prunes; the DELETE finds nothing when another one just did.
 */
export function pruneCreateKeysPeriodically(app: FastifyInstance, db: SqlExecutor, table: CreateKeyTable): void {
  const prune = startPeriodicTask(`${table.name} prune`, CREATE_KEYS_PRUNE_MS, () => pruneCreateKeys(db, table), app.log);
  runSoonAfterListening(app, prune, FIRST_PRUNE_AFTER_LISTEN_MS);
  app.addHook('onClose', () => prune.stop());
}

/** Keys are kept 24 h; an expired one is freed when sent again, so an hour's lag only keeps rows. */
const CREATE_KEYS_PRUNE_MS = 60 * 60 * 1000;
/** And once soon after the start, after the embedded statistics' first run at 1 s. */
const FIRST_PRUNE_AFTER_LISTEN_MS = 5_000;
