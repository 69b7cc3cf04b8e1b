import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../http/errors.js';
import { packageRoot } from '../packageRoot.js';

/** Where `npm run build` puts the bundle (src/console/buildConsole.ts) and where the service serves it from. */
export const CONSOLE_BUILD_DIR = path.join(packageRoot, 'dist', 'console');

/**
 * The console's pages may load script, style, images and API responses from the service itself and
 * nothing else: no inline script or style, no other origin, no framing.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The one HTML page; the bundle draws everything else. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>adsvc console</title>
<link rel="icon" href="/console/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/console.css">
<script type="module" src="/console/console.js"></script>
</head>
<body>
<noscript>The adsvc console needs JavaScript.</noscript>
<div id="console"></div>
</body>
</html>
`;

/** The console's tab icon: a blue tile with "ad" (the colours of the console's buttons). */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#0b5cad"/>
<text x="16" y="22" font-family="system-ui, sans-serif" font-size="16" font-weight="700" text-anchor="middle" fill="#fff">ad</text>
</svg>
`;

const ASSETS: Record<string, string> = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'console.js.map': 'application/json; charset=utf-8',
  'console.css.map': 'application/json; charset=utf-8',
};

function consoleHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-cache');
}

/**
 * Serves the web console at /console: the page and the bundle `npm run build` wrote (dist/console).
 * The console calls the public API with the signed-in caller's credentials; it has no API of its own.
 */
export async function consoleRoutes(app: FastifyInstance, { dir = CONSOLE_BUILD_DIR }: { dir?: string } = {}): Promise<void> {
  app.get('/console', async (_request, reply) => consoleHeaders(reply).type('text/html; charset=utf-8').send(PAGE));
  app.get('/console/', async (_request, reply) => reply.redirect('/console', 301));
  app.get('/console/icon.svg', async (_request, reply) => consoleHeaders(reply).type('image/svg+xml').send(ICON));
  // Browsers ask for /favicon.ico whatever a page declares (before reading it, or for a bookmark):
  // "nothing here" without an error, cached for a day so they stop asking. The console's own icon
  // is the SVG its page links.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).header('cache-control', 'public, max-age=86400').send());

  app.get<{ Params: { asset: string } }>('/console/:asset', async (request, reply) => {
    const type = ASSETS[request.params.asset];
    if (!type) throw new ApiError('not_found', 'no such console file');
    let body: Buffer;
    try {
      body = readFileSync(path.join(dir, request.params.asset));
    } catch {
      // A checkout run without `npm run build` (tsx) has no bundle: say how to get one.
      throw new ApiError('unavailable', 'the console is not built: run npm run build');
    }
    return consoleHeaders(reply).type(type).send(body);
  });
}
