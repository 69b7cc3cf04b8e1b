import { describe, expect, it } from 'vitest';
import { jsonSpoolLine, spoolLine } from '../../src/tracking/eventSpool.js';
import { plainSpoolLine, plainSpoolTime } from '../../src/tracking/spoolLineText.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

/** A pixel as the bench and browsers send it: nothing in it needs escaping. */
const pixel = () =>
  sampleEvent({
    serve_id: 'AZqL0sT7xYwq9mZ3kQ2b',
    placement_id: 'homepage-top',
    ip: '2a01:4f8:c17:b8f::2',
    ip_class: 'residential',
    ip_network: '2a01:4f8::/32',
    user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    country: 'DE',
    user_key: 'k_9f8e7d6c5b4a',
    fetch_dest: 'image',
    fetch_mode: 'no-cors',
    fetch_site: 'cross-site',
  });

const oddTexts = [
  '',
  'quote " inside',
  'backslash \\ inside',
  'newline \n tab \t nul \u0000 unit separator \u001f',
  'delete \u007f and latin-1 \u00e9\u00ff',
  'CJK \u4e2d\u6587 and euro \u20ac',
  'paired surrogates \ud83d\ude00',
  'lone high \ud83d',
  'lone low \ude00 at the end',
  '</script> <!-- &amp;',
  '\u2028 line and paragraph \u2029 separators',
];

const textColumns = [
  'event_id', 'type', 'source', 'serve_id', 'campaign_id', 'line_item_id', 'creative_id', 'placement_id', 'publisher_id',
  'price_model', 'click_id', 'ip', 'ip_class', 'ip_network', 'user_agent', 'ivt', 'country', 'user_key', 'fetch_dest',
  'fetch_mode', 'fetch_site', 'unbilled',
] as const satisfies ReadonlyArray<keyof TrackedEvent>;

describe('spoolLine written as text', () => {
  it('takes the plain path for a pixel, with the same bytes as the generic line', () => {
    const event = pixel();
    expect(plainSpoolLine(event)).toBeDefined();
    expect(spoolLine(event)).toBe(jsonSpoolLine(event));
  });

  it('writes the same bytes as the generic line whatever a text column holds', () => {
    for (const column of textColumns) {
      for (const text of oddTexts) {
        const event = { ...pixel(), [column]: text };
        expect(spoolLine(event), `${column} = ${JSON.stringify(text)}`).toBe(jsonSpoolLine(event));
      }
    }
  });

  it('writes the same bytes as the generic line for any amount', () => {
    for (const amount of [0, -0, 1, -1, 2_500_000, 1.5, 1e21, 123456789012345680000, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity]) {
      for (const column of ['cost_nanos', 'revenue_nanos', 'price_nanos'] as const) {
        const event = { ...pixel(), [column]: amount };
        expect(spoolLine(event), `${column} = ${amount}`).toBe(jsonSpoolLine(event));
      }
    }
  });

  it('writes the same time as toISOString for any time it takes, and leaves the others to it', () => {
    const times = [0, 1, 9, 10, 99, 100, 999, 1000, 59_999, 60_000, Date.UTC(2026, 10, 23, 23, 59, 59, 999), Date.UTC(2026, 10, 24), Date.UTC(2024, 1, 29, 12, 0, 0, 5)];
    for (let ms = Date.UTC(2026, 11, 31, 23, 59, 58, 990); ms < Date.UTC(2027, 0, 1, 0, 0, 1, 10); ms += 7) times.push(ms);
    times.push(253_402_300_799_999);
    for (const ms of times) {
      expect(plainSpoolTime(ms), String(ms)).toBe(new Date(ms).toISOString().replace('T', ' ').replace('Z', ''));
      const event = { ...pixel(), event_time: ms };
      expect(spoolLine(event)).toBe(jsonSpoolLine(event));
    }
    for (const ms of [-1, -1000, 1.5, 253_402_300_800_000, 8.64e15]) {
      expect(plainSpoolTime(ms), String(ms)).toBeUndefined();
      const event = { ...pixel(), event_time: ms };
      expect(spoolLine(event), String(ms)).toBe(jsonSpoolLine(event));
    }
    // The generic encoder's verdict on a time that is no date stays the same: it throws.
    expect(() => spoolLine({ ...pixel(), event_time: NaN })).toThrow(RangeError);
  });
});
