import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DirectRoute } from '../../src/http/answerBeforeFastify.js';

/** The status of a request the direct route left to fastify's route, answered here by a stand-in for it. */
export const LEFT_TO_FASTIFY = 299;

export interface DirectRouteServer {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * A bare node server on loopback with `route` in front, as answerBeforeFastify puts it in front of
 * fastify: a request the route declines is answered LEFT_TO_FASTIFY ('fallback'), so a unit test
 * tells which requests the route takes without an app. The integration tests compare the answers
 * of both on the real server.
 */
export async function startDirectRouteServer(route: DirectRoute): Promise<DirectRouteServer> {
  const server = createServer((request, response) => {
    if (route(request, response)) return;
    request.resume();
    response.writeHead(LEFT_TO_FASTIFY).end('fallback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
