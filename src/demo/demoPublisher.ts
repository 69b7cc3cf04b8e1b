import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { request } from 'undici';
import { chatPage } from './chatPage.js';
import { demoConversation } from './demoConversation.js';
import { THE_BACKEND_PATH_IN_THE_DOCS } from './documentedSnippet.js';
import { landingPage, rainShellImage } from './advertiserSite.js';

export interface DemoPublisherOptions {
  /** Where adsvc answers /v1/serve and serves the render kit. */
  adsvcUrl: string;
  publisherToken: string;
  placementId: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  logger?: FastifyServerOptions['logger'];
}

export interface DemoPublisher {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** adsvc answers in milliseconds; a page should not hang on a slow ad. */
const SERVE_TIMEOUT_MS = 2000;

/**
 * A publisher's backend in miniature. It serves the chat page, answers the page's request for an ad
 * by calling adsvc's /v1/serve with its publisher token (which never reaches the browser), and plays
 * the advertiser's site too: the landing page clicks end on, and the creative's image.
 */
export async function startDemoPublisher(options: DemoPublisherOptions): Promise<DemoPublisher> {
  const app = Fastify({ logger: options.logger ?? false });
  const page = chatPage(options.adsvcUrl);

  app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page));

  // The snippet's request for the answer's ad, at the path docs/rendering.md gives it.
  app.post(THE_BACKEND_PATH_IN_THE_DOCS, async (incoming, reply) => {
    try {
      const response = await request(`${options.adsvcUrl}/v1/serve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.publisherToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          placement_id: options.placementId,
          context: { query: demoConversation.query, response: demoConversation.response.join('\n') },
          // The reader's address and browser as this backend saw them, so adsvc can cross-check the pixel.
          user: { ip: incoming.ip, user_agent: incoming.headers['user-agent'] ?? '' },
        }),
        headersTimeout: SERVE_TIMEOUT_MS,
        bodyTimeout: SERVE_TIMEOUT_MS,
      });
      const answer = (await response.body.json()) as { ad?: unknown };
      if (response.statusCode !== 200) {
        incoming.log.warn({ status: response.statusCode, answer }, 'adsvc did not serve');
        return reply.send({ ad: null });
      }
      // Only the ad goes to the page: the backend hands it on as adsvc sent it and never calls its links.
      return reply.header('cache-control', 'no-store').send({ ad: answer.ad ?? null });
    } catch (error) {
      incoming.log.warn({ err: error }, 'adsvc unreachable');
      return reply.send({ ad: null });
    }
  });

  app.get('/landing', async (incoming, reply) => {
    const parameters = new URL(incoming.url, 'http://demo.invalid').searchParams;
    return reply.type('text/html; charset=utf-8').send(landingPage([...parameters.entries()]));
  });

  app.get('/images/rain-shell.svg', async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=3600').send(rainShellImage),
  );

  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  return { url: address, app, close: () => app.close() };
}
