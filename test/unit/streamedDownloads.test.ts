import { get } from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamedDownloads } from '../../src/http/streamedDownloads.js';
import { registerErrorHandling } from '../../src/http/errors.js';

/**
 * rev40 R1: a download's slot (MAX_DOWNLOADS_PER_OWNER) was given back on its response's 'close',
 * listened for at admission; a client that hung up while the request was being authenticated had
 * closed it already, so the slot was never given back and the organization was refused 429 until a
 * restart. A real fastify on a real socket; the route admits after a slow authentication.
 */
const downloads = new StreamedDownloads(120_000, 2);
const app = Fastify();
let port = 0;

beforeAll(async () => {
  registerErrorHandling(app);
  app.get('/download', { onRequest: () => new Promise((resolve) => setTimeout(resolve, 300)) }, async (_request, reply) => {
    downloads.admit(reply, { organization_id: 'org' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    return reply.type('text/csv').send('a,b\r\n');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});

afterAll(() => app.close());

function download(abortAfterMs?: number): Promise<number | 'aborted'> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/download' }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', () => resolve('aborted'));
    if (abortAfterMs !== undefined) setTimeout(() => request.destroy(), abortAfterMs);
  });
}

describe('a download slot', () => {
  it('is given back by a download whose client hung up before it was admitted', async () => {
    expect(await Promise.all([download(), download()])).toEqual([200, 200]);
    expect(await Promise.all([download(50), download(50)])).toEqual(['aborted', 'aborted']);
    // The aborted requests reach their handler (and are admitted) after the 300 ms authentication.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await Promise.all([download(), download()])).toEqual([200, 200]);
    expect(downloads.stats().refused).toBe(0);
  });
});
