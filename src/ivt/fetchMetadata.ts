import type { IncomingHttpHeaders } from 'node:http';
import type { IvtReason } from './ivtReasons.js';

/**
 * A request's Fetch Metadata (Sec-Fetch-Dest, -Mode, -Site), as sent; '' when absent. Browsers set
 * these headers themselves and scripts cannot (they are forbidden header names), so they say how a
 * browser made the request: `new Image()` sends dest `image`, a script `fetch` sends dest `empty`
 * and mode `cors` or `no-cors`, following a link sends mode `navigate`. Older browsers send none.
 */
export interface FetchMetadata {
  dest: string;
  mode: string;
  site: string;
  /**
   * The request is a prefetch or prerender the browser made ahead of any click (`Sec-Purpose:
   * prefetch`, `prefetch;prerender` from speculation rules, or the legacy `Purpose: prefetch`).
   */
  prefetch: boolean;
}

/** Longer values are cut before they are stored: the longest token the standard defines has 15 characters. */
const MAX_STORED_VALUE = 32;

export function readFetchMetadata(headers: IncomingHttpHeaders): FetchMetadata {
  return {
    dest: headerValue(headers['sec-fetch-dest']),
    mode: headerValue(headers['sec-fetch-mode']),
    site: headerValue(headers['sec-fetch-site']),
    prefetch: /\bprefetch\b/i.test(headerValue(headers['sec-purpose']) || headerValue(headers.purpose)),
  };
}

function headerValue(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().slice(0, MAX_STORED_VALUE);
}

/**
 * The spec's pixel rule: an impression is an image request. A request that says it is for anything
 * else (a script `fetch`, an iframe, a document) is `not_image_request`; one that says nothing is
 * judged on its address and user agent alone.
 */
export function impressionRequestIvt(fetch: FetchMetadata): Extract<IvtReason, 'not_image_request'> | '' {
  return fetch.dest !== '' && fetch.dest !== 'image' ? 'not_image_request' : '';
}

/**
 * A click is a person following click_url: a top-level navigation. A `fetch` of the link (mode not
 * `navigate`), a navigation of a frame (dest `iframe` or `frame`: a hidden iframe loading click_url
 * is click stuffing from the reader's own browser) and a prefetch or prerender (made before anyone
 * clicked) are `not_navigation`.
 */
export function clickRequestIvt(fetch: FetchMetadata): Extract<IvtReason, 'not_navigation'> | '' {
  if (fetch.mode !== '' && fetch.mode !== 'navigate') return 'not_navigation';
  if (fetch.dest !== '' && fetch.dest !== 'document') return 'not_navigation';
  return fetch.prefetch ? 'not_navigation' : '';
}
