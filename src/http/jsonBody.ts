import type { FastifyInstance } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { notUtf8Charset, unsupportedContentEncoding } from './bodyEncoding.js';
import { ApiError } from './errors.js';

/** A request body's bytes as the value its JSON says (undefined for an empty body), or an ApiError as answered. */
export type JsonBodyReader = (contentType: string | undefined, bytes: Buffer) => unknown;

/**
 * fastify's own JSON parser (prototype-poisoning safe), except that an empty body counts as no
 * body: `POST .../activate` with a JSON content type and nothing in it is a valid request.
 * fastify's text/plain parser goes: a text body would reach the schemas as a string and answer
 * 422, where the contract says 415 unsupported_media_type for anything that is not JSON.
 * JSON is UTF-8 (RFC 8259): a body that names another charset is 415, and bytes that are not UTF-8
 * are 400, never read with U+FFFD in their place and stored as something the caller did not send.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  const readJsonBody = jsonBodyReader(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let value: unknown;
    try {
      const encodingProblem = unsupportedContentEncoding(request.headers['content-encoding']);
      if (encodingProblem) throw new ApiError('unsupported_media_type', encodingProblem);
      value = readJsonBody(request.headers['content-type'], body as Buffer);
    } catch (error) {
      return done(error as Error, undefined);
    }
    return done(null, value);
  });
}

/** The parser registerJsonParser registers, for a route answered before fastify reads its body (directServe.ts). */
export function jsonBodyReader(app: FastifyInstance): JsonBodyReader {
  // Synchronous: it calls back before it returns.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (contentType, bytes) => {
    const charsetProblem = notUtf8Charset(contentType);
    if (charsetProblem) throw new ApiError('unsupported_media_type', charsetProblem);
    if (!isUtf8(bytes)) throw new ApiError('bad_request', 'request body is not valid UTF-8');
    const text = bytes.toString('utf8');
    if (text.trim() === '') return undefined;
    if (cannotPoison(text)) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ApiError('bad_request', 'request body is not valid JSON');
      }
    }
    let parsed: { error: Error | null; value: unknown } | undefined;
    parseJson(undefined as never, text, (error, value) => (parsed = { error, value }));
    if (parsed === undefined) throw new ApiError('bad_request', 'request body is not valid JSON');
    if (parsed.error !== null) throw new ApiError('bad_request', isJson(text) ? POISONING_REFUSED : 'request body is not valid JSON');
    return parsed.value;
  };
}

/**
 * fastify's parser refuses valid JSON only for a `__proto__` key or a `constructor.prototype` path
 * (prototype poisoning), and its error does not say which it was: JSON.parse tells them apart.
 */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
const POISONING_REFUSED = 'request body has a "__proto__" key or a "constructor" object with a "prototype" key, which is refused';

/**
 * Whether no key of this JSON text can be `__proto__` or `constructor`, spelled out or escaped, and it has no byte order mark:
 * then fastify's parser (secure-json-parse) answers what JSON.parse does, and JSON.parse alone is
 * a third cheaper (its option handling and two regular expressions over the text: about 0.5 us of
 * a serve under load, bench/README.md "Serve: session 29"). Any other text takes fastify's parser.
 */
function cannotPoison(text: string): boolean {
  // A byte order mark too: JSON.parse refuses it, fastify's parser drops it.
  return text.charCodeAt(0) !== 0xfeff && !text.includes('\\u') && !text.includes('__proto__') && !text.includes('constructor');
}
