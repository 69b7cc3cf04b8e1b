import { describe, expect, it } from 'vitest';
import { SPOOL_COLUMNS, spoolLine } from '../../src/tracking/eventSpool.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

describe('spoolLine', () => {
  it('lists every column in SPOOL_COLUMNS order, the time as UTC text, as one JSON line', () => {
    const event = sampleEvent({
      event_time: Date.UTC(2026, 10, 23, 13, 4, 5, 67),
      user_agent: 'quote " backslash \\ newline \n',
      country: 'DE',
      user_key: 'k1',
      fetch_dest: 'image',
      fetch_mode: 'no-cors',
      fetch_site: 'cross-site',
    });
    const line = spoolLine(event);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    const row = JSON.parse(line) as unknown[];
    expect(row).toEqual(SPOOL_COLUMNS.map((column) => (column === 'event_time' ? '2026-11-23 13:04:05.067' : event[column])));
  });
});
