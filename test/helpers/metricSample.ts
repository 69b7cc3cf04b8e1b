import type { TestContext } from './testApp.js';

/**
 * The value of one sample of the app's /metrics, named as the exposition writes it, labels and all
 * (`adsvc_events_accepted_total`, `adsvc_http_request_duration_seconds_count{route="/v1/serve",...}`);
 * 0 while there is no such line (a labelled series appears with its first observation).
 */
export async function metricSample(on: TestContext, sample: string): Promise<number> {
  const text = (await on.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}
