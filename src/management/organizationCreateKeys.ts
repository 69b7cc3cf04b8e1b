import type { FastifyRequest } from 'fastify';
import { advertiserOf } from '../http/apiKeyAuth.js';
import type { CreateKeys } from '../http/createOnce.js';
import { keysIn, type CreateKeyTable, type KeptAs } from '../http/createKeyTable.js';

/**
 * The advertiser's create keys (createOnce.ts), under the caller's organization in
 * `idempotent_creates` (migrations/0021): two organizations may use the same key.
 */
export const organizationCreateKeyTable: CreateKeyTable = {
  name: 'idempotent_creates',
  scopeColumns: ['organization_id'],
  keyColumn: 'idempotency_key',
  answerColumn: 'answer_body',
  statusColumn: 'answer_status',
};

/** The key and the answer as they are: the advertiser's creates answer no secret. */
const asSent: KeptAs<string> = {
  key: (key) => key,
  seal: (_key, answer) => answer,
  open: (_key, stored) => stored,
};

export function organizationCreateKeys(request: FastifyRequest): CreateKeys {
  return keysIn(organizationCreateKeyTable, [advertiserOf(request).organizationId], asSent);
}
