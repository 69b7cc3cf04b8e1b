import { describe, expect, it } from 'vitest';
import { SPOOL_COLUMNS, forEachSpooledEvent, spoolLine } from '../../src/tracking/eventSpool.js';
import type { CountedEvent } from '../../src/tracking/trackedEvent.js';
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

describe('forEachSpooledEvent', () => {
  it("gives back what the counters read of each line, one event per line: a line that is no row counts nothing, an older release's shorter line takes the defaults", () => {
    const spooled = [
      sampleEvent({ event_time: Date.UTC(2026, 10, 23, 23, 59, 59, 999), cost_nanos: 1_000_000_000, user_key: 'k1', user_agent: 'quote " and \\' }),
      sampleEvent({ type: 'click', source: 'click', ivt: 'duplicate', cost_nanos: 0 }),
    ];
    const older = JSON.stringify(SPOOL_COLUMNS.slice(0, 19).map((column) => (column === 'event_time' ? '2026-11-24 00:00:00.001' : spooled[0]![column]))) + '\n';
    const seen: CountedEvent[] = [];
    forEachSpooledEvent(`${spoolLine(spooled[0]!)}not a row\n${spoolLine(spooled[1]!)}${older}`, (event) => seen.push(event));
    const counted = ({ event_id, event_time, type, serve_id, line_item_id, cost_nanos, ivt, user_key }: CountedEvent) => ({ event_id, event_time, type, serve_id, line_item_id, cost_nanos, ivt, user_key });
    expect(seen).toEqual([
      counted(spooled[0]!),
      { event_id: '', event_time: NaN, type: '', serve_id: '', line_item_id: '', cost_nanos: 0, ivt: '', user_key: '' },
      counted(spooled[1]!),
      { ...counted(spooled[0]!), event_time: Date.UTC(2026, 10, 24, 0, 0, 0, 1), user_key: '' },
    ]);
  });
});
