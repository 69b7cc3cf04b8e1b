import { randomUUID } from 'node:crypto';
import { NIL_UUID, NO_EVENT_CONTEXT, type TrackedEvent } from '../../src/tracking/trackedEvent.js';

/** A valid residential impression; override what the test is about. */
export function sampleEvent(overrides: Partial<TrackedEvent> = {}): TrackedEvent {
  return {
    event_id: randomUUID(),
    event_time: Date.now(),
    type: 'impression',
    source: 'pixel',
    serve_id: randomUUID(),
    campaign_id: randomUUID(),
    line_item_id: randomUUID(),
    creative_id: randomUUID(),
    placement_id: 'test-placement',
    publisher_id: randomUUID(),
    price_model: 'tCPM',
    cost_nanos: 2_500_000,
    revenue_nanos: 0,
    click_id: NIL_UUID,
    ip: '81.2.69.142',
    ip_class: 'residential',
    ip_network: '',
    user_agent: 'Mozilla/5.0',
    ivt: '',
    ...NO_EVENT_CONTEXT,
    price_nanos: 2_500_000,
    ...overrides,
  };
}
