import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestDurationHistogram } from '../../src/http/requestDurationHistogram.js';

describe('RequestDurationHistogram', () => {
  it("writes what prom-client's Histogram writes for the same observations, in /metrics and in JSON", async () => {
    const expected = new Registry();
    const histogram = new Histogram({
      name: 'adsvc_http_request_duration_seconds',
      help: 'Time to answer a request, per route (the route pattern, never the raw URL), method and status',
      labelNames: ['route', 'method', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [expected],
    });
    const actual = new Registry();
    const durations = new RequestDurationHistogram(actual);
    const requests: Array<[string, string, number, number]> = [
      ['/v1/t/i/*', 'GET', 200, 0.0003],
      ['/v1/t/i/*', 'GET', 200, 0.001],
      ['/v1/t/i/*', 'GET', 503, 0.0011],
      ['/v1/serve', 'POST', 200, 0.0025],
      ['/v1/serve', 'POST', 200, 0.07],
      ['/v1/serve', 'POST', 401, 0],
      ['unmatched', 'GET', 404, 10],
      ['unmatched', 'GET', 404, 12.5],
      ['/v1/t/c/*', 'GET', 302, 0.25],
      ['/v1/campaigns/:id', 'PATCH', 200, 1.0000001],
    ];
    for (const [route, method, status, seconds] of requests) {
      histogram.observe({ route, method, status_code: String(status) }, seconds);
      durations.observe(route, method, status, seconds);
    }
    expect(await actual.metrics()).toBe(await expected.metrics());
    expect(await actual.getMetricsAsJSON()).toEqual(await expected.getMetricsAsJSON());
    durations.reset();
    histogram.reset();
    expect(await actual.metrics()).toBe(await expected.metrics());
  });
});
