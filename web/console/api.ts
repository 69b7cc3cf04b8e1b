import { FieldProblems, type ErrorDetail } from './fieldProblems.js';
import { plainMessage } from './plainMessages.js';
import { authHeaders, type Session } from './session.js';

/**
 * An error answer of the API ({error:{code,message,details}}), or a network failure (status 0,
 * code `network`). `method` is the request's: a write (anything but GET) that got no answer may have
 * been done all the same, and is said so (ui.ts), unless it went with an Idempotency-Key
 * (`resendable`): sent again with the key, the API makes it once. A keyed create answered 503 may
 * have been made by an earlier send of the key still running, so it is not said unchanged either.
 */
export class ApiFailure extends FieldProblems {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    details: ErrorDetail[] = [],
    readonly method = 'GET',
    readonly resendable = false,
  ) {
    super(message, details);
  }
}

/** A create's Idempotency-Key (submissionKey.ts): sent again with it, the API answers the first answer instead of creating twice. */
export interface SendOptions {
  idempotencyKey?: string;
}

async function send(session: Session, method: string, path: string, body: unknown, accept: string, options: SendOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept, ...authHeaders(session) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  } catch {
    throw new ApiFailure(0, 'network', 'the service did not answer', [], method, options.idempotencyKey !== undefined);
  }
  if (response.ok) return response;
  const answer = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | null;
  throw new ApiFailure(
    response.status,
    answer?.error?.code ?? 'http_' + response.status,
    answer?.error?.message ?? `the service answered ${response.status}`,
    (answer?.error?.details ?? []).map((detail) => ({ path: detail.path, message: plainMessage(detail.message) })),
    method,
    options.idempotencyKey !== undefined,
  );
}

/** Calls the API with the session's credentials; resolves to the JSON answer (undefined for 204). */
export async function api<T>(session: Session, method: string, path: string, body?: unknown, options?: SendOptions): Promise<T> {
  const response = await send(session, method, path, body, 'application/json', options);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/**
 * An effect's ask of the API, whose answer (or failure) reaches the page only while the effect is
 * current; what it returns is the effect's cleanup. Asks are answered in any order: without this, an
 * older ask answered last (the breakdown, the date range, the placement chosen before; a reload from
 * before Pause) replaced the newer one's answer on the page, under the newer one's heading.
 */
export function whileCurrent<T>(ask: Promise<T>, answered: (answer: T) => void, failed: (failure: unknown) => void): () => void {
  let current = true;
  ask.then(
    (answer) => {
      if (current) answered(answer);
    },
    (failure: unknown) => {
      if (current) failed(failure);
    },
  );
  return () => {
    current = false;
  };
}

/** A GET answered in `accept` (a CSV export), as the stream of its body. */
export async function apiStream(session: Session, path: string, accept: string): Promise<ReadableStream<Uint8Array<ArrayBuffer>>> {
  const response = await send(session, 'GET', path, undefined, accept);
  return response.body ?? new Blob([]).stream();
}

export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
