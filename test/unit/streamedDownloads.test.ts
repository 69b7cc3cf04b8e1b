import { get } from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { StreamedDownloads } from '../../src/http/streamedDownloads.js';
import { registerErrorHandling } from '../../src/http/errors.js';
import { eventually } from '../helpers/eventually.js';

/**
 * A download's slot (MAX_DOWNLOADS_PER_OWNER), on a real fastify and real sockets.
 * rev40 R1: the slot was given back on its response's 'close', listened for at admission; a client
 * that hung up while the request was being authenticated had closed it already, so the slot was
 * never given back and the organization was refused 429 until a restart.
 * rev40 R2: given back at the response's close, the slot of a client that hung up was free again
 * while the page query its request had started still ran: opening and aborting downloads in a loop
 * had any number of queries running. A route's "query" here is a promise the test settles.
 */
const downloads = new StreamedDownloads(120_000, 2);
const app = Fastify();
let port = 0;
/** The held requests' queries, settled by the test: the first page's (`hold=first`) or a later page's (`hold=later`). */
const queries: Array<() => void> = [];
/** Held requests whose response the server saw close. */
let closedHeld = 0;

const query = (hold: string | undefined) =>
  hold === undefined ? new Promise((resolve) => setTimeout(resolve, 20)) : new Promise<void>((resolve) => queries.push(resolve));

beforeAll(async () => {
  registerErrorHandling(app);
  app.get<{ Querystring: { hold?: string } }>('/download', { onRequest: () => new Promise((resolve) => setTimeout(resolve, 300)) }, async (request, reply) => {
    const { hold } = request.query;
    if (hold !== undefined) reply.raw.once('close', () => (closedHeld += 1));
    return downloads.download(reply, { organization_id: 'org' }, async () => {
      await query(hold === 'first' ? hold : undefined);
      reply.type('text/csv');
      return (async function* () {
        // A piece big enough to be sent at once, then the next page's query.
        yield `a,b\r\n${'x'.repeat(64 * 1024)}\r\n`;
        await query(hold === 'later' ? hold : undefined);
        yield 'c,d\r\n';
      })();
    });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});

afterAll(() => app.close());

/** The answer's status; 'aborted' when the client hung up, after `abortAfterMs` or once the first bytes came (`abortAfterMs` 'first bytes'). */
function download(path = '/download', abortAfter?: number | 'first bytes'): Promise<number | 'aborted'> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path }, (response) => {
      if (abortAfter === 'first bytes') response.once('data', () => request.destroy());
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
      // Destroyed once its answer began, a request emits no 'error': its response closes unfinished.
      response.on('close', () => resolve(response.complete ? response.statusCode! : 'aborted'));
    });
    request.on('error', () => resolve('aborted'));
    if (typeof abortAfter === 'number') setTimeout(() => request.destroy(), abortAfter);
  });
}

describe('a download slot', () => {
  it('is given back by a download whose client hung up before it was admitted', async () => {
    expect(await Promise.all([download(), download()])).toEqual([200, 200]);
    expect(await Promise.all([download('/download', 50), download('/download', 50)])).toEqual(['aborted', 'aborted']);
    // The aborted requests reach their handler (and are admitted) after the 300 ms authentication.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await Promise.all([download(), download()])).toEqual([200, 200]);
    expect(downloads.stats().refused).toBe(0);
  });

  for (const hold of ['first', 'later'] as const) {
    it(`is held by a download whose client hung up until its ${hold === 'first' ? 'first' : 'next'} page's query returned`, async () => {
      closedHeld = 0;
      onTestFinished(() => {
        for (const settle of queries.splice(0)) settle();
      });
      const refusedBefore = downloads.stats().refused;
      // Both hang up once their request runs its query: before any answer (the first page's), or after the first bytes (a later page's).
      const aborted = [download(`/download?hold=${hold}`, hold === 'first' ? 500 : 'first bytes'), download(`/download?hold=${hold}`, hold === 'first' ? 500 : 'first bytes')];
      expect(await Promise.all(aborted)).toEqual(['aborted', 'aborted']);
      await eventually(async () => (closedHeld === 2 && queries.length === 2 ? true : undefined), 'both held requests closed, their queries running');
      // Their queries still run: the owner's two slots are theirs.
      expect(await download()).toBe(429);
      expect(downloads.stats().refused).toBe(refusedBefore + 1);
      for (const settle of queries.splice(0)) settle();
      await eventually(async () => ((await download()) === 200 ? true : undefined), 'a download admitted once the queries returned');
    });
  }
});
