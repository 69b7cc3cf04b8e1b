import type { IncomingHttpHeaders } from 'node:http';

/**
 * What a reader whose click cannot be kept right now (a full disk, the event buffer full, the
 * creative's destination unknown while Postgres is down) sees: a page, not the API's JSON. The click
 * is not recorded, so it is not redirected either (a 2xx or 302 means the event is kept); the link
 * is the same click, followed by the reader (a person's navigation, as a click must be: a page that
 * reloaded itself would be no user activation).
 */
export const CLICK_UNAVAILABLE_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Try again in a few seconds</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #1f2937">
<h1 style="font-size: 1.25rem">This link is busy right now</h1>
<p>We could not open the advertiser's page. Please <a href="">try again</a> in a few seconds.</p>
</body>
</html>
`;

/**
 * A browser's navigation, the only request a person sees the answer of: Sec-Fetch-Dest `document`,
 * or, from a browser that sends no Fetch Metadata, an Accept that asks for HTML. A script or an
 * API client keeps the envelope.
 */
export function isNavigation(headers: IncomingHttpHeaders): boolean {
  const dest = headers['sec-fetch-dest'];
  if (dest !== undefined) return dest === 'document';
  const accept = headers.accept;
  return typeof accept === 'string' && accept.includes('text/html');
}
