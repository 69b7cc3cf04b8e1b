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
 * Judged only when both are present: a browser without the header (Firefox, Safari, an older
 * Chromium, a plain http origin) and a user agent without `Chrome/` (Firefox's, Safari's) are not.
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
