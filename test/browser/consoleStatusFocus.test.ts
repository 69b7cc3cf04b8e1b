import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import {
  consoleProblems,
  createActiveCampaign,
  createAdvertiser,
  createPublisher,
  screenshots,
  signIn,
  withConsoleService,
} from './consoleKit.js';

const service = withConsoleService();

/** What has the keyboard focus: its tag and text (BODY when the focus was dropped). */
const focused = (page: Page) => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim() ?? ''}`);

/** The status lines' text, what a screen reader announces. */
const statusLines = (page: Page) => page.evaluate(() => [...document.querySelectorAll('[role="status"]')].map((line) => line.textContent?.trim()).filter(Boolean));

describe.skipIf(skipBrowserTests)('console in Chromium: a button that replaces itself keeps the keyboard focus', () => {
  it("a campaign page's Pause and Activate focus the new button and say what changed", async () => {
    const advertiser = await createAdvertiser(service, 'Focus Outfitters');
    const publisher = await createPublisher(service, 'focus-chat');
    await createActiveCampaign(service, advertiser, publisher.placementId);
    const page = await signIn(service, 'an advertiser', advertiser.apiKey, { keyboard: true });
    await page.getByRole('link', { name: 'Rain shells' }).first().click();
    await page.getByRole('button', { name: 'Pause campaign' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('BUTTON Activate campaign');
    expect(await statusLines(page)).toContain('Rain shells is now paused.');
    await screenshots(page, 'advertiser-campaign-paused-focus');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('BUTTON Pause campaign');
    expect(await statusLines(page)).toContain('Rain shells is now active.');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });

  it("the publisher's Request review keeps the focus on its confirmation when the form goes", async () => {
    const publisher = await createPublisher(service, 'focus-review');
    const page = await signIn(service, 'a publisher', publisher.token, { keyboard: true });
    await page.getByRole('checkbox', { name: publisher.placementId }).check();
    // The page's reload after the request is held, as a slow network would: the confirmation takes
    // the focus at once, and keeps it when the reload removes the form.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/v1/publisher/placements', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Request review' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatch(/^DIV Review requested for /);
    answer();
    // Its only placement now waits in the review: the form is gone.
    await expect.poll(() => page.getByRole('button', { name: 'Request review' }).count()).toBe(0);
    expect(await focused(page)).toMatch(/^DIV Review requested for /);
    await page.unroute('**/v1/publisher/placements');
    await screenshots(page, 'publisher-review-requested-focus');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
