import type { FastifyLoggerOptions, FastifyRequest } from 'fastify';
import type { LoggerOptions } from 'pino';

/**
 * Query parameters whose names look like credentials (api_key, token, access_token, secret,
 * password, auth, signature, session...). Clients sometimes send keys in the URL by mistake; the
 * request log must not keep them.
 */
const CREDENTIAL_NAME = /key|token|secret|passw|pwd|auth|credential|signature|^sig$|session|cookie/i;
const REDACTED = '[REDACTED]';

/** The URL with the value of every credential-looking query parameter replaced by [REDACTED]. */
function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      return CREDENTIAL_NAME.test(decodedName(name)) && equals !== -1 ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryStart)}?${query}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** fastify's request serializer, with the URL redacted. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The service's logger: pino JSON lines at `level`, credentials kept out of headers and URLs. */
export function loggerOptions(level: string): FastifyLoggerOptions & LoggerOptions {
  return {
    level,
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
    serializers: { req: serializeRequest },
  };
}
