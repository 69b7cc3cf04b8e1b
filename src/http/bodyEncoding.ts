/*
 * Whether a request body's bytes can be read as the service reads every body, JSON or NDJSON:
 * uncompressed UTF-8 text. Each answers why not (the 415 message), or undefined.
 */

/** Why a body of this content type cannot be read as UTF-8 text, or undefined when it can (no charset, or utf-8). */
export function notUtf8Charset(contentType: string | undefined): string | undefined {
  // The usual header, answered without the regular expression.
  if (contentType === 'application/json') return undefined;
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return undefined;
  return `charset ${charset} is not supported: send the body as UTF-8 (charset=utf-8, or no charset)`;
}

/**
 * Why a body with this Content-Encoding cannot be read, or undefined for none (or identity). Bodies
 * are not decompressed: a gzip body read as it came was answered "not valid UTF-8", which sent the
 * client looking at its text. 415 is the status RFC 7694 gives an unsupported content coding.
 */
export function unsupportedContentEncoding(encoding: string | undefined): string | undefined {
  if (encoding === undefined || /^\s*(identity\s*)?$/i.test(encoding)) return undefined;
  return `content-encoding ${encoding.trim()} is not supported: send the body uncompressed`;
}
