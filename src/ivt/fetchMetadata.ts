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
  /** `Sec-Fetch-User: ?1`: the browser says a person started this navigation (a click, a key, the address bar). */
  user: boolean;
}

/** Longer values are cut before they are stored: the longest token the standard defines has 15 characters. */
const MAX_STORED_VALUE = 32;

export function readFetchMetadata(headers: IncomingHttpHeaders): FetchMetadata {
  return {
    dest: headerValue(headers['sec-fetch-dest']),
    mode: headerValue(headers['sec-fetch-mode']),
    site: headerValue(headers['sec-fetch-site']),
    prefetch: /\bprefetch\b/i.test(headerValue(headers['sec-purpose']) || headerValue(headers.purpose)),
    user: headerValue(headers['sec-fetch-user']) === '?1',
  };
}

function headerValue(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().slice(0, MAX_STORED_VALUE);
}

/**
 * Browsers send Fetch Metadata only to a potentially trustworthy origin (W3C Secure Contexts): an
 * https one, or a loopback host. So a request to a TRACKING_BASE_URL like that, without any of it,
 * from a user agent that claims a browser sending it with every request, was not made by that
 * browser (`no_fetch_metadata`). To a plain http origin no browser sends it: nothing to judge there.
 */
export function browsersSendFetchMetadataTo(baseUrl: string): boolean {
  const { protocol, hostname } = new URL(baseUrl);
  if (protocol === 'https:') return true;
  return hostname === 'localhost' || hostname.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === '[::1]';
}

/**
 * The spec's pixel rule: an impression is an image request. A request that says it is for anything
 * else (a script `fetch`, an iframe, a document) is `not_image_request`; one claiming a browser too
 * old to be live is `outdated_browser` whatever it says, one that says nothing is `no_fetch_metadata`
 * when its browser would have said (see `claimedBrowserIvt`), and otherwise it is judged on its
 * address and user agent alone.
 */
export function impressionRequestIvt(
  fetch: FetchMetadata,
  userAgent: string,
  metadataExpected: boolean,
): Extract<IvtReason, 'not_image_request' | MissingMetadataReason> | '' {
  if (fetch.dest !== '' && fetch.dest !== 'image') return 'not_image_request';
  return claimedBrowserIvt(fetch, userAgent, metadataExpected);
}

/**
 * A click is a person following click_url: a top-level navigation. A `fetch` of the link (mode not
 * `navigate`), a navigation of a frame (dest `iframe` or `frame`: a hidden iframe loading click_url
 * is click stuffing from the reader's own browser) and a prefetch or prerender (made before anyone
 * clicked) are `not_navigation`. One without any Fetch Metadata from a browser that sends it is
 * `no_fetch_metadata`: an HTTP client claiming that browser (`outdated_browser` when the browser it
 * claims is one no person still runs, with or without Fetch Metadata). A top-level navigation that a script
 * or a meta refresh started on the page (`location.href = click_url` a second after the pixel) is
 * `no_user_activation` when the browser is one that marks every navigation a person starts and did
 * not mark this one.
 */
export function clickRequestIvt(
  fetch: FetchMetadata,
  userAgent: string,
  metadataExpected: boolean,
): Extract<IvtReason, 'not_navigation' | MissingMetadataReason | 'no_user_activation'> | '' {
  if (fetch.mode !== '' && fetch.mode !== 'navigate') return 'not_navigation';
  if (fetch.dest !== '' && fetch.dest !== 'document') return 'not_navigation';
  if (fetch.prefetch) return 'not_navigation';
  const claimed = claimedBrowserIvt(fetch, userAgent, metadataExpected);
  if (claimed !== '') return claimed;
  // Site `none` is a navigation the browser itself started (the address bar, a bookmark, a link
  // handed over by another app): no page's script can make one, so it is never judged here.
  if (fetch.mode === 'navigate' && !fetch.user && fetch.site !== 'none' && sendsEveryFetchMetadata(userAgent)) return 'no_user_activation';
  return '';
}

type MissingMetadataReason = 'no_fetch_metadata' | 'outdated_browser';

/**
 * What a request to an origin browsers send Fetch Metadata to (`browsersSendFetchMetadataTo`) says
 * of the browser its user agent claims. `outdated_browser` from a Chromium before 76 or a Firefox
 * before 90 (`fetchMetadataEngine`), which no person runs any more, whatever Fetch Metadata it
 * carries: without any it is the claim an HTTP client picks to escape `no_fetch_metadata` (try35
 * H2), with some it is a contradiction of its own, since neither of those browsers ever sent a
 * `Sec-Fetch-*` header (try36 M1: one `Sec-Fetch-Dest` escaped the rule). Then, with none of
 * Sec-Fetch-Dest, -Mode, -Site: `no_fetch_metadata` from a user agent whose browser sends them
 * with every request there (Chromium 76+, Firefox 90+, WebKit 16.4+). Other unknown user agents and
 * older Safari are not judged by it. The user agent is read with byte tests: this runs on every
 * pixel to such an origin.
 */
function claimedBrowserIvt(fetch: FetchMetadata, userAgent: string, metadataExpected: boolean): MissingMetadataReason | '' {
  if (!metadataExpected) return '';
  const engine = fetchMetadataEngine(userAgent);
  if (engine === 'outdated') return 'outdated_browser';
  if (fetch.dest !== '' || fetch.mode !== '' || fetch.site !== '') return '';
  if (engine === 'current') return 'no_fetch_metadata';
  return webKitSendingFetchMetadata(userAgent) ? 'no_fetch_metadata' : '';
}

/**
 * Chromium 76+ (Chrome, Edge, Opera, Samsung Internet, Android WebView) and Firefox 90+ send
 * Sec-Fetch-Site and -Mode with every request to a trustworthy origin (-Dest too since Chromium
 * 80), and `Sec-Fetch-User: ?1` with every navigation a person starts. Safari and every iOS browser
 * (all WebKit: their user agents say CriOS, FxiOS, EdgiOS, never Chrome/ or Firefox/) send the other
 * Fetch Metadata headers (since 16.4: `webKitSendingFetchMetadata`) but not this one
 * (webkit.org/b/247697), so their clicks are not judged by it. Pale Moon and Basilisk (the Goanna
 * engine) say Firefox/ and send none of them.
 * A sender that lies about its user agent gains nothing: a script on a page cannot change the
 * reader's browser's user agent, and an HTTP client claiming a browser is judged by what that
 * browser would have sent.
 */
const FIRST_CHROME_SENDING_IT = 76;
const FIRST_FIREFOX_SENDING_IT = 90;

function sendsEveryFetchMetadata(userAgent: string): boolean {
  return fetchMetadataEngine(userAgent) === 'current';
}

/**
 * A Chromium (`Chrome/`: Chrome, Edge, Opera, Samsung Internet, WebView all carry it) or Firefox
 * user agent: `current` from the versions above, `outdated` below them, '' for anything else. The
 * ones below are 2019 (Chrome 75) and 2021 (Firefox 89) releases, auto-updated away for years: the
 * last Chrome for Windows 7 (109) and the last Firefox ESR for old macOS (115) are both above. A
 * client claiming one is an HTTP client picking a claim it hopes no Fetch Metadata rule judges
 * (`outdated_browser`). Its false positives: browsers frozen on an old engine, such as a 2019 smart
 * TV's or an unupdated Android 4.4 WebView, which do not read chat answers, and a person whose UA
 * switcher claims one of them (its current browser's Fetch Metadata betrays it). The first
 * `Chrome/` wins over a `Firefox/` after it. KaiOS (JioPhone and other current feature phones, sold
 * and updated) says Firefox/48 (2.5) or Firefox/84 (3.x) on a Gecko kept old by design and sends no
 * Fetch Metadata: not judged (try36 L5). SeaMonkey 2.53 (still
 * maintained) says Firefox/60 and Goanna browsers (Pale Moon, Basilisk) say Firefox/ too, on engines
 * of their own without Fetch Metadata: neither is judged.
 */
function fetchMetadataEngine(userAgent: string): 'current' | 'outdated' | '' {
  const chrome = majorVersionAfter(userAgent, 'Chrome/');
  if (chrome >= 0) return chrome >= FIRST_CHROME_SENDING_IT ? 'current' : 'outdated';
  const firefox = majorVersionAfter(userAgent, 'Firefox/');
  if (firefox < 0 || userAgent.includes('Goanna/') || userAgent.includes('SeaMonkey/') || userAgent.includes('KAIOS/')) return '';
  return firefox >= FIRST_FIREFOX_SENDING_IT ? 'current' : 'outdated';
}

/**
 * The major version in `token` + digits + `.` (`Chrome/126.0`), the token starting a word
 * (`HeadlessChrome/` is not `Chrome/`); -1 when the user agent has none. Byte tests: no regular
 * expression on the pixel's path.
 */
export function majorVersionAfter(userAgent: string, token: string): number {
  for (let at = userAgent.indexOf(token); at >= 0; at = userAgent.indexOf(token, at + 1)) {
    if (at > 0 && isWordCharacter(userAgent.charCodeAt(at - 1))) continue;
    let value = -1;
    let i = at + token.length;
    for (; i < userAgent.length && i < at + token.length + 6; i++) {
      const digit = userAgent.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) break;
      value = (value < 0 ? 0 : value * 10) + digit;
    }
    if (value >= 0 && userAgent.charCodeAt(i) === 46) return value;
  }
  return -1;
}

function isWordCharacter(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/**
 * WebKit sends Sec-Fetch-Dest, -Mode and -Site since Safari 16.4 (March 2023; its release notes:
 * "Added support for Fetch Metadata Request Headers"; MDN's compatibility data: Safari and iOS
 * 16.4, Sec-Fetch-User never), on macOS and iOS alike. Its version is told two ways:
 * - iOS and iPadOS: every browser there is WebKit of the system's version (Safari, CriOS, FxiOS,
 *   EdgiOS, in-app views), which the user agent gives as `iPhone OS 18_1` or `CPU OS 16_4`. Since
 *   iOS 26 Safari freezes it at 18_6, above 16.4 all the same.
 * - macOS: the system's version is frozen (`Mac OS X 10_15_7`), so Safari's own `Version/17.5 ...
 *   Safari/` is read, on a `Macintosh` user agent only (an iPad asking for desktop sites says so too;
 *   WebKitGTK browsers on Linux such as GNOME Web say Version/ and Safari/ as well, and are not judged).
 */
const IOS_WEBKIT = /\((?:iPhone|iPad|iPod)\b[^)]*? OS (\d+)(?:_(\d+))?[ _;)]/;
const MAC_SAFARI = /\(Macintosh\b.*\bVersion\/(\d+)(?:\.(\d+))?.*\bSafari\//;
const FIRST_WEBKIT_SENDING_IT = [16, 4] as const;

function webKitSendingFetchMetadata(userAgent: string): boolean {
  const match = IOS_WEBKIT.exec(userAgent) ?? MAC_SAFARI.exec(userAgent);
  if (match === null) return false;
  const [major, minor] = [Number(match[1]), Number(match[2] ?? 0)];
  return major > FIRST_WEBKIT_SENDING_IT[0] || (major === FIRST_WEBKIT_SENDING_IT[0] && minor >= FIRST_WEBKIT_SENDING_IT[1]);
}
