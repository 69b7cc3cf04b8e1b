import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { packageRoot } from '../packageRoot.js';

/** Where the render kit is served; a change that breaks pages already using it ships as v2 beside it. */
export const RENDER_SCRIPT_PATH = '/sdk/v1/render.js';

/**
 * v1 changes in place (fixes that keep pages working), so it is cached for an hour, not for good
 * (never `immutable`): a fix reaches every reader within the hour.
 */
const CACHE_CONTROL = 'public, max-age=3600';

/**
 * Serves the browser render kit (public/sdk/render-v1.js) from memory. Publishers' pages load it
 * from another origin on every page view; a reader's copy is revalidated with a 304 to a matching
 * If-None-Match.
 */

export async function renderScriptRoute(app: FastifyInstance): Promise<void> {
  const script = readFileSync(path.join(packageRoot, 'public', 'sdk', 'render-v1.js'));
  const etag = `"${createHash('sha256').update(script).digest('base64url').slice(0, 27)}"`;

  app.get(RENDER_SCRIPT_PATH, async (request, reply) => {
    reply
      .header('cache-control', CACHE_CONTROL)
      .header('etag', etag)
      .header('x-content-type-options', 'nosniff')
      // Pages with COEP or a crossorigin attribute can still load it.
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('access-control-allow-origin', '*');
    const cached = (request.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    if (cached.includes(etag) || cached.includes('*')) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(script);
  });
}
