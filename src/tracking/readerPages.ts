import type { IncomingHttpHeaders } from 'node:http';

/**
 * What a person who follows a click link sees when it does not redirect: a short page, not the
 * API's JSON. Only a browser's navigation gets one (`isNavigation`); a script keeps the envelope.
 */
function readerPage(title: string, heading: string, paragraph: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #1f2937">
<h1 style="font-size: 1.25rem">${heading}</h1>
<p>${paragraph}</p>
</body>
</html>
`;
}

/**
 * The click cannot be kept right now (a full disk, the event buffer full, the creative's destination
 * unknown while Postgres is down). The click is not recorded, so it is not redirected either (a 2xx
 * or 302 means the event is kept); the link is the same click, followed by the reader (a person's
 * navigation, as a click must be: a page that reloaded itself would be no user activation).
 */
export const CLICK_UNAVAILABLE_PAGE = readerPage(
  'Try again in a few seconds',
  'This link is busy right now',
  `We could not open the advertiser's page. Please <a href="">try again</a> in a few seconds.`,
);

/**
 * The ad's creative no longer exists (its campaign, line item or creative was deleted; they are
 * deleted outright, destination and all). The click is not recorded: nobody reached the advertiser.
 */
export const AD_GONE_PAGE = readerPage(
  'Ad no longer available',
  'This ad is no longer available',
  'The advertiser has withdrawn it. You can close this tab and go back to the page you were reading.',
);

/** The link names nothing we signed: most often cut short by the app or messenger it was copied through. */
export const BROKEN_LINK_PAGE = readerPage(
  'Link not found',
  'This link is incomplete',
  'The address may have been cut short when it was copied or shared. Go back to the page you were reading and open the ad from there.',
);

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
