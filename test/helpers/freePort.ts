import { createServer } from 'node:net';

/**
 * A port of 127.0.0.1 nothing listens on (bound, then let go): for a server the test starts to
 * listen on, or, left alone, one whose connections are refused (a real outage).
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
