import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`; bash .ci/run installs it when missing). */
const CHROMIUM_PATH = '/usr/bin/chromium';

/** ADSVC_SKIP_BROWSER=1 skips the browser tests, saying so; without it a missing Chromium fails them. */
export const skipBrowserTests = process.env.ADSVC_SKIP_BROWSER === '1';
if (skipBrowserTests) console.warn('ADSVC_SKIP_BROWSER=1: skipping the real-browser tests (render kit, console)');

/**
 * A desktop Chrome user agent of the installed Chromium's version. Headless Chromium announces
 * itself as HeadlessChrome, which the service rightly classifies as a bot (no ad is served to it
 * and its pixels are invalid traffic); these tests stand in for a person's browser, so they present
 * a person's browser, and of the version its client hints (`"Chromium";v="N"`) give, or its pixels
 * would be client_hints_mismatch.
 */
function desktopChromeUserAgent(): string {
  const version = /Chromium (\d+)\./.exec(execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  if (version === null) throw new Error(`cannot tell the version of ${CHROMIUM_PATH}`);
  return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version[1]}.0.0.0 Safari/537.36`;
}

export const VIEWPORT = { width: 1280, height: 720 };

export interface ChromiumSession {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile (its own --user-data-dir), closed and removed by close(). */
export async function launchChromium(): Promise<ChromiumSession> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` ` +
        '(bash .ci/run does), or set ADSVC_SKIP_BROWSER=1 to skip the browser tests',
    );
  }
  const profile = mkdtempSync(path.join(os.tmpdir(), 'adsvc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
    userAgent: desktopChromeUserAgent(),
    viewport: VIEWPORT,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
