import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaxConnections, descriptorLimit } from '../../src/http/connectionLimit.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';

const CAP = 20;
let ctx: TestContext;
let port: number;
beforeAll(async () => {
  ctx = await startTestApp({ MAX_CONNECTIONS: String(CAP), HEADERS_TIMEOUT_MS: '1000' });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await ctx.close();
});

/** A connection sending the start of a request and a header line, then nothing: a slow client. */
function slowClient(): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (received += data));
    socket.on('error', () => undefined);
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.on('connect', () => {
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-a: b\r\n');
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

async function connections(): Promise<number> {
  return new Promise((resolve, reject) => ctx.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

async function healthz(): Promise<number | string> {
  return fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(3000) }).then(
    (response) => response.status,
    (error: Error) => error.name,
  );
}

describe('open connections are bounded', () => {
  it('closes connections past MAX_CONNECTIONS at once, and answers slow headers 408 within HEADERS_TIMEOUT_MS', { timeout: 15_000 }, async () => {
    const started = Date.now();
    const slow = await Promise.all(Array.from({ length: CAP }, slowClient));
    try {
      await expect.poll(connections, { timeout: 2000 }).toBe(CAP);
      // The cap holds: one more connection is closed unanswered.
      expect(await healthz()).toBe('TypeError');
      expect(await connections()).toBe(CAP);
      // The slow clients are answered 408 and closed within the headers timeout (checked every fifth of it)...
      const answers = await Promise.all(slow.map(({ closed }) => closed));
      for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(Date.now() - started).toBeLessThan(3000);
      // ...and a normal request is answered again.
      expect(await healthz()).toBe(200);
    } finally {
      // A failure leaves them open: closing the app would wait for them.
      for (const { socket } of slow) socket.destroy();
    }
  });
});

describe('the default cap leaves descriptors to the stores', () => {
  it('reads the open-file limit of /proc/self/limits', () => {
    const limits = 'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            20000                20000                files     \n';
    expect(descriptorLimit(limits)).toBe(20_000);
    expect(descriptorLimit(limits.replace('20000   ', 'unlimited'))).toBe(1_048_576);
    expect(descriptorLimit('')).toBe(1024);
  });

  it('keeps a quarter, at least 1,024 and at most half, for the stores', () => {
    expect(defaultMaxConnections(20_000)).toBe(15_000);
    expect(defaultMaxConnections(1_048_576)).toBe(786_432);
    expect(defaultMaxConnections(2048)).toBe(1024);
    expect(defaultMaxConnections(1024)).toBe(512);
  });
});
