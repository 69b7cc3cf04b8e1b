import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { skipBrowserTests } from './chromium.js';
import { createAdvertiser, signIn, withConsoleService } from './consoleKit.js';

const service = withConsoleService();

/** One more than a reporting CSV page holds (100,000 rows): the export needs a second page. */
const CAMPAIGNS = 100_001;
const name = (n: number) => `Export ${String(n).padStart(6, '0')}`;

describe.skipIf(skipBrowserTests)('console in Chromium: a CSV download longer than one page of the API', () => {
  it('downloads every campaign of the report, with one header line', async () => {
    const advertiser = await createAdvertiser(service, 'Export Co');
    // One statement: through the API this many campaigns would take minutes. Same created_at, so
    // the report's order is by id; the names are checked as a set.
    await service.db.query(
      `INSERT INTO campaigns (organization_id, user_id, name, brand_name, status)
       SELECT (SELECT m.organization_id FROM memberships m WHERE m.user_id = $1::uuid), $1::uuid, 'Export ' || lpad(n::text, 6, '0'), 'Export', 'paused' FROM generate_series(0, $2::int - 1) n`,
      [advertiser.userId, CAMPAIGNS],
    );
    const page = await signIn(service, 'an advertiser', advertiser.apiKey);
    await page.getByRole('link', { name: 'Reports' }).first().click();
    await page.getByRole('table', { name: 'Metrics by campaign' }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 120_000 }),
      page.getByRole('button', { name: 'Download campaign CSV' }).click(),
    ]);
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(lines.pop()).toBe('');
    const [header, ...rows] = lines;
    expect(header).toMatch(/^campaign_id,campaign_name,/);
    expect(rows).toHaveLength(CAMPAIGNS);
    const names = new Set(rows.map((row) => row.split(',')[1]));
    expect(names.size).toBe(CAMPAIGNS);
    expect(names.has(name(0)) && names.has(name(CAMPAIGNS - 1))).toBe(true);
  }, 300_000);
});
