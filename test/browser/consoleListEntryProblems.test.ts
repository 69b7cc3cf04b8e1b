import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import { consoleProblems, createAdvertiser, screenshots, signIn, withConsoleService } from './consoleKit.js';

const service = withConsoleService();

/** What is said under a field: the texts its aria-describedby names, its hint and its problem. */
const describedBy = (field: Locator) =>
  field.evaluate((input) => (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent).join(' '));

const longKeyword = 'a'.repeat(150);

describe.skipIf(skipBrowserTests)('console in Chromium: a refused list entry is shown under its field', () => {
  it('New campaign and Save targeting name the keyword, placement or language the API refused, under its field', async () => {
    const advertiser = await createAdvertiser(service, 'Entry Outfitters');
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Campaign name').fill('Rain shells');
    await page.getByLabel('Brand name').fill('Trailhead Outfitters');
    await page.getByLabel('Line item title').fill('Hikers');
    await page.getByLabel('Daily budget').fill('50');
    await page.getByLabel('Budget currency').fill('USD');
    await page.getByLabel('Bid value').fill('0.5');
    await page.getByLabel('Keywords to match').fill(`${longKeyword}, rain`);
    await page.getByLabel('Placements to run on').fill('pA, p A');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    const keywords = page.getByLabel('Keywords to match');
    await expect.poll(() => keywords.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(keywords)).toBe('Comma-separated; empty matches every conversation. Keyword 1 (aaaaaaaaaaaaaaaaaaaa…) takes at most 100 characters.');
    const placements = page.getByLabel('Placements to run on');
    expect(await placements.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(placements)).toMatch(/^Comma-separated placement ids; empty means all\. Placement 2 \(p A\) may hold letters, digits and /);
    // Nothing of it left as a raw path above the form.
    expect(await page.locator('#compose-errors').textContent()).not.toContain('line_item.targeting');
    await screenshots(page, 'advertiser-compose-list-entries');

    await page.getByLabel('Keywords to match').fill('rain');
    await page.getByLabel('Placements to run on').fill('');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    const targeting = page.getByRole('form', { name: 'Targeting of Hikers' });
    await targeting.waitFor();
    await targeting.getByLabel('Keywords to match').fill(`rain, ${longKeyword}`);
    await targeting.getByLabel('Languages (ISO 639-1)').fill('en, english');
    await targeting.getByRole('button', { name: 'Save targeting' }).click();
    const targetKeywords = targeting.getByLabel('Keywords to match');
    await expect.poll(() => targetKeywords.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(targetKeywords)).toBe('Keyword 2 (aaaaaaaaaaaaaaaaaaaa…) takes at most 100 characters.');
    const languages = targeting.getByLabel('Languages (ISO 639-1)');
    expect(await languages.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(languages)).toMatch(/^Language 2 \(english\) must be an ISO 639-1 language code/);
    // The focus goes to the first field marked, not left on the button: once the marks are drawn (an
    // effect, after the next frame), so waited for.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-invalid'))).toBe('true');
    expect(await targeting.getByRole('alert').textContent()).not.toMatch(/keywords\.include|languages\./);
    await screenshots(page, 'advertiser-targeting-list-entries');
    expect(consoleProblems(page)).toEqual([]);
    await page.close();
  });
});
