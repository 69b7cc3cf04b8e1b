import { request } from 'undici';

export interface JsonResponse<Body = unknown> {
  status: number;
  body: Body;
}

/** One JSON request over undici (seeding, probes and sequential timings; the load itself comes from autocannon). */
export async function requestJson<Body = unknown>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<JsonResponse<Body>> {
  const response = await request(url, {
    method,
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: parseIfJson(text) as Body };
}

function parseIfJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}
