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
}

/** Longer values are cut before they are stored: the longest token the standard defines has 15 characters. */
const MAX_STORED_VALUE = 32;

export function readFetchMetadata(headers: IncomingHttpHeaders): FetchMetadata {
  return {
    dest: headerValue(headers['sec-fetch-dest']),
    mode: headerValue(headers['sec-fetch-mode']),
    site: headerValue(headers['sec-fetch-site']),
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

/** A click is a person following click_url: a navigation. A `fetch` or prefetch of the link is `not_navigation`. */
export function clickRequestIvt(fetch: FetchMetadata): Extract<IvtReason, 'not_navigation'> | '' {
  return fetch.mode !== '' && fetch.mode !== 'navigate' ? 'not_navigation' : '';
}
