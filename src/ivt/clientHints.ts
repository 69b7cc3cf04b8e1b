import { majorVersionAfter, type FetchMetadata } from './fetchMetadata.js';
import type { IvtReason } from './ivtReasons.js';

/**
 * A Chromium browser sends its brands in `Sec-CH-UA` with every request to a trustworthy origin
 * (https or loopback, as Fetch Metadata), and since user-agent reduction (Chromium 101-113) the
 * `"Chromium";v="N"` brand there and the user agent's `Chrome/N.0.0.0` are the same major version, in
 * Chrome, Edge, Opera, Brave, Samsung Internet and WebView alike (each adds its own brand next to
 * it; a plain Chromium build sends only that one). Automation sets a browser's user agent with one
 * setting (Playwright `userAgent`, Puppeteer `setUserAgent`, `--user-agent`) and leaves the hints as
 * they were, so a headless Chromium claiming another Chrome says so here: `HeadlessChrome` among
 * its brands (older headless builds), or a Chromium version that is not the user agent's
 * (`client_hints_mismatch`).
 *
 * Judged here only when both are present: a browser without the header (Firefox, Safari, an older
 * Chromium, a plain http origin) and a user agent without `Chrome/` (Firefox's, Safari's) are not.
 * A click without it is judged by `navigationWithoutClientHints`.
 * So a UA-switcher extension that claims Firefox or Safari from Chrome passes, and one that claims
 * another Chrome version without changing the hints (most leave them alone) is caught: a person, as
 * docs/tracking.md says. A bot that also sets matching hints passes: this closes the careless
 * default, not the determined bot.
 *
 * Byte tests, no regular expression: real Chrome sends the header with every pixel, so this runs on
 * most of the pixel's traffic.
 */
export function clientHintsIvt(hints: string | string[] | undefined, userAgent: string | undefined): Extract<IvtReason, 'client_hints_mismatch'> | '' {
  if (hints === undefined || userAgent === undefined) return '';
  const brands = Array.isArray(hints) ? hints.join(',') : hints;
  if (brands.includes('HeadlessChrome')) return 'client_hints_mismatch';
  const claimed = majorAfter(userAgent, userAgent.indexOf(CHROME_TOKEN), CHROME_TOKEN.length);
  if (claimed < 0) return '';
  const engine = majorAfter(brands, brands.indexOf(CHROMIUM_BRAND), CHROMIUM_BRAND.length);
  return engine >= 0 && engine !== claimed ? 'client_hints_mismatch' : '';
}

const CHROME_TOKEN = 'Chrome/';
const CHROMIUM_BRAND = '"Chromium";v="';

/** The whole number whose digits start `skip` characters after `at` (-1 when `at` is, or when no digit follows). */
function majorAfter(text: string, at: number, skip: number): number {
  if (at < 0) return -1;
  let value = -1;
  for (let i = at + skip; i < text.length && i < at + skip + 6; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    value = (value < 0 ? 0 : value * 10) + digit;
  }
  return value;
}

/**
 * A click that is a navigation (Sec-Fetch-Mode `navigate`, so a browser's request to a trustworthy
 * origin) from a user agent claiming Chromium 90+ (Chrome, Edge, Opera, Samsung Internet...) but
 * without any `Sec-CH-UA`: not that browser, `client_hints_mismatch` (try36 M1: a curl loop sending
 * full Fetch Metadata and no hints had every click billed). Chromium sends the low-entropy hints,
 * `Sec-CH-UA` among them, by default with every request to a secure origin since 90 (MDN: "Unless
 * blocked by a user agent permission policy, it is sent by default"); a page's
 * `Permissions-Policy: ch-ua=()` can withhold it from the page's subresources (the pixel is one,
 * so the pixel is not judged) but not from a top-level navigation to another origin, which the
 * click is. Not judged: Android WebView (`; wv)`), which sends the hints only since 116 and only in
 * apps that keep its default user agent, and so any user agent of WebView's shape `Version/4.0
 * Chrome/` (DuckDuckGo for Android and other browsers built on WebView drop `; wv` and keep that,
 * and send no hints: ivtfix36); and Electron apps (`Electron/`), which send the hints only after a
 * server's Accept-CH (electron/electron#34762). False positives (docs/tracking.md): Chromium forks
 * that strip the hints for privacy (Cromite, formerly Bromite; ungoogled-chromium with hints turned
 * off) and CEF or WebView2 apps with a user agent of their own. Each a substring test: flat cost.
 */
export function navigationWithoutClientHints(
  hintsSent: boolean,
  userAgent: string,
  fetch: FetchMetadata,
  metadataExpected: boolean,
): Extract<IvtReason, 'client_hints_mismatch'> | '' {
  if (hintsSent || !metadataExpected || fetch.mode !== 'navigate') return '';
  if (majorVersionAfter(userAgent, CHROME_TOKEN) < FIRST_CHROMIUM_SENDING_HINTS) return '';
  if (userAgent.includes(WEBVIEW_TOKEN) || userAgent.includes(WEBVIEW_SHAPE) || userAgent.includes(ELECTRON_TOKEN)) return '';
  return 'client_hints_mismatch';
}

const FIRST_CHROMIUM_SENDING_HINTS = 90;
const WEBVIEW_TOKEN = '; wv)';
/** What every Android WebView user agent says before its Chrome version, `wv` or not. */
const WEBVIEW_SHAPE = 'Version/4.0 Chrome/';
const ELECTRON_TOKEN = 'Electron/';
