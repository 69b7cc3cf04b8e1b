import type { Postgres, SqlExecutor } from '../store/postgres.js';
import type { Permission } from './apiKeyAuth.js';

/** A live API key as the auth hook needs it. */
export interface ApiKeyRow {
  id: string;
  organization_id: string;
  permissions: Permission[];
}

/** The API key channel of migrations/0012_management_write_notices.sql: every committed write to api_keys notifies it. */
const API_KEYS_CHANNEL = 'api_keys';
/** Live keys remembered at most; past it the memory starts again (a bound, not a tuning knob). */
const MAX_REMEMBERED_KEYS = 10_000;

const lookups = new WeakMap<SqlExecutor, (keyHash: string) => Promise<ApiKeyRow | undefined>>();

/**
 * How the auth hook finds the live key with a hash: one query per request, on a Postgres server
 * (other instances revoke keys too, and a LISTEN connection can be lost unnoticed). On embedded
 * PGlite every write to api_keys is this process's own and notifies at its commit (migrations/0012),
 * so the live keys already found are remembered until any such write: a request saves its key
 * query (about 0.4 ms of the single PGlite connection, on every management call) and a revoked key
 * still stops working at once. Unknown keys are never remembered. Until the subscription is in
 * place every lookup queries. One lookup per store, shared by every route.
 */
export function apiKeyLookup(db: SqlExecutor): (keyHash: string) => Promise<ApiKeyRow | undefined> {
  let lookup = lookups.get(db);
  if (!lookup) {
    lookup = (db as Partial<Postgres>).listen ? rememberingLookup(db as Postgres) : (keyHash) => queryKey(db, keyHash);
    lookups.set(db, lookup);
  }
  return lookup;
}

async function queryKey(db: SqlExecutor, keyHash: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    'SELECT id, organization_id, permissions FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [keyHash],
  );
  return rows[0];
}

function rememberingLookup(db: Postgres): (keyHash: string) => Promise<ApiKeyRow | undefined> {
  const remembered = new Map<string, ApiKeyRow>();
  let subscribed = false;
  /** Bumped by every notification: a lookup whose query ran across a write does not remember its answer. */
  let generation = 0;
  const subscription = db.listen!(API_KEYS_CHANNEL, () => {
    generation += 1;
    remembered.clear();
  }).then(
    () => {
      subscribed = true;
    },
    () => undefined, // Without the subscription every lookup keeps querying.
  );
  void subscription;
  return async (keyHash) => {
    const known = remembered.get(keyHash);
    if (known) return known;
    const before = generation;
    const found = await queryKey(db, keyHash);
    if (found && subscribed && generation === before) {
      if (remembered.size >= MAX_REMEMBERED_KEYS) remembered.clear();
      remembered.set(keyHash, found);
    }
    return found;
  };
}
