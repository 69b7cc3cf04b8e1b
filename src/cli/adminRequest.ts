import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CommandError, type AdminCommand } from './adminCommands.js';

/** How many times a create is sent at most, and the pause before each resend (a server restarting gets a moment). */
const CREATE_SENDS = 3;
const RESEND_PAUSE_MS = [1_000, 2_000];

/**
 * Errors of a connection never made, or of an address that cannot be asked: the request did not
 * leave, so nothing was created by it (a refused TLS certificate ends the handshake before it).
 */
const NOT_SENT = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_INVALID_URL', 'UND_ERR_INVALID_ARG',
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Answers that say nothing about the create: a proxy's 502 or 504 (the service may have made it and
 * its answer was lost between them) or a 503 (the service could not, or a proxy had no instance). A
 * resend with the same key is safe whichever it was, so they are sent again like a lost answer.
 */
const NO_VERDICT = new Set([502, 503, 504]);

export interface AdminAnswer {
  statusCode: number;
  text: string;
}

/**
 * Sends an admin command's one request and reads its answer. A create the API makes once
 * (`createsOnce`) goes with an Idempotency-Key of this invocation, a UUID: when its answer is lost
 * after the request may have reached the server (a reset connection, a server stopped mid-request),
 * or answered 502, 503 or 504 (NO_VERDICT), it is sent again with the same key, at most CREATE_SENDS
 * times in all, each resend said on stderr; the API answers a resend the first answer
 * (`Idempotent-Replayed`, after waiting for the first if it still runs), secret included, so one
 * object exists and its key or token is printed as if the first answer had come. Any other 5xx, or
 * a refusal after a lost answer, names the key. A connection never made on the first send (NOT_SENT)
 * is said at once, as for any command: nothing was sent. Any other command is sent once: only these
 * five take a key.
 */
export async function sendAdminCommand(baseUrl: string, token: string, command: AdminCommand, path: string, body: unknown): Promise<AdminAnswer> {
  // Imported here: `serve` never needs it, and loading it cost every start 0.05-0.08 s.
  const { request } = await import('undici');
  const idempotencyKey = command.createsOnce ? randomUUID() : undefined;
  const headers = {
    authorization: `Bearer ${token}`,
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
  };
  for (let send = 1; ; send++) {
    try {
      const response = await request(baseUrl + path, { method: command.method, headers, body: body ? JSON.stringify(body) : undefined });
      // Read inside the attempt: an answer cut after its status line is lost as much as one never begun.
      const text = await response.body.text();
      if (response.headers['idempotent-replayed'] === 'true') {
        console.error('adsvc: the server answered the first send\'s answer (Idempotent-Replayed): the create was made once');
      }
      if (idempotencyKey !== undefined && NO_VERDICT.has(response.statusCode) && send < CREATE_SENDS) {
        console.error(`adsvc: the server answered ${response.statusCode}, which says nothing of the create; sending it again with the same Idempotency-Key, which makes it once (send ${send + 1} of ${CREATE_SENDS})`);
        await sleep(RESEND_PAUSE_MS[send - 1] ?? 0);
        continue;
      }
      if (idempotencyKey !== undefined && response.statusCode >= 400 && (send > 1 || response.statusCode >= 500)) {
        // Refused after a lost answer, or a 5xx: the create may have been made; the key finds it.
        console.error(`adsvc: the create may have been made: sent again with Idempotency-Key ${idempotencyKey} within 24 hours, it answers the one made, or makes it`);
      }
      return { statusCode: response.statusCode, text };
    } catch (failure) {
      const error = failure as Error & { code?: string };
      const reason = error.message || error.code || 'no answer';
      if (idempotencyKey === undefined || (send === 1 && NOT_SENT.has(error.code ?? ''))) {
        throw new CommandError(`cannot reach the server at ${baseUrl} (--url, ADSVC_URL): ${reason}`);
      }
      if (send === CREATE_SENDS) {
        throw new CommandError(
          `no answer from the server at ${baseUrl} after ${CREATE_SENDS} sends (${reason}): the create may have been made, once. ` +
            `Sent again with Idempotency-Key ${idempotencyKey} within 24 hours, it answers the one made, or makes it (docs/operating.md "Creating once")`,
        );
      }
      console.error(`adsvc: no answer from the server (${reason}); sending the create again with the same Idempotency-Key, which makes it once (send ${send + 1} of ${CREATE_SENDS})`);
      await sleep(RESEND_PAUSE_MS[send - 1] ?? 0);
    }
  }
}
