import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { answerBeforeFastify } from '../../src/http/answerBeforeFastify.js';

/** A request line for a raw socket: keep-alive, so a second request can follow on the same connection. */
const get = (path: string) => `GET ${path} HTTP/1.1\r\nhost: localhost\r\n\r\n`;

describe('answerBeforeFastify', () => {
  it('answers before fastify while the app runs, and leaves every request to fastify (503, connection closed) once it closes', async () => {
    const app = Fastify({ logger: false });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    app.get('/hold', async () => {
      entered();
      await held;
      return 'held';
    });
    const directly: string[] = [];
    answerBeforeFastify(app, (request, response) => {
      if (request.url !== '/direct') return false;
      directly.push(request.url);
      response.end('direct');
      return true;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const socket = connect((app.server.address() as { port: number }).port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));

    socket.write(get('/direct'));
    await expect.poll(() => received).toContain('direct');
    // A request in flight keeps its connection through the close, and the next one on it arrives while closing.
    socket.write(get('/hold'));
    await holding;
    const closed = app.close();
    await new Promise((resolve) => setImmediate(resolve));
    const arrived = new Promise<void>((resolve) => app.server.on('request', () => resolve()));
    socket.write(get('/direct'));
    await arrived;
    release();
    const answers = () => received.split(/(?=HTTP\/1\.1 )/);
    await expect.poll(() => answers().length).toBe(3);
    socket.destroy();
    await closed;

    expect(directly).toEqual(['/direct']);
    expect(answers().map((answer) => answer.slice(0, 12))).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 503']);
    expect(answers()[2]).toMatch(/connection: close/i);
  });
});
