import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/errors.js';
import { CONSOLE_CSP, consoleRoutes } from '../../src/console/consoleRoutes.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

let app: FastifyInstance | undefined;

async function consoleApp(dir: string): Promise<FastifyInstance> {
  app = Fastify();
  registerErrorHandling(app);
  await app.register(consoleRoutes, { dir });
  return app;
}

afterEach(async () => {
  await app?.close();
});

describe('GET /console', () => {
  it('serves the page with a CSP that allows only the service itself and no inline script or style', async () => {
    const response = await (await consoleApp(tempDirectory('console-'))).inject({ method: 'GET', url: '/console' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("default-src 'none'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("style-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    expect(response.headers['x-frame-options']).toBe('DENY');
    // Nothing inline: the page only links the bundle.
    expect(response.body).not.toMatch(/<script>|<style|style=/);
    expect(response.body).toContain('<script type="module" src="/console/console.js"></script>');
  });
});

describe('GET /console/{asset}', () => {
  it('serves the built script with the same headers', async () => {
    const dir = tempDirectory('console-');
    writeFileSync(path.join(dir, 'console.js'), 'console.log(1)');
    const response = await (await consoleApp(dir)).inject({ method: 'GET', url: '/console/console.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(response.body).toBe('console.log(1)');
  });

  it('answers 404 not_found for any other name, including paths out of the folder', async () => {
    const server = await consoleApp(tempDirectory('console-'));
    for (const url of ['/console/secrets.json', '/console/..%2Fpackage.json', '/console/%2e%2e']) {
      const response = await server.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });

  it('answers 503 unavailable, saying to run the build, when the bundle was not built', async () => {
    const response = await (await consoleApp(tempDirectory('console-'))).inject({ method: 'GET', url: '/console/console.css' });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toEqual({ code: 'unavailable', message: 'the console is not built: run npm run build' });
  });
});

describe('icons', () => {
  it('answers /favicon.ico (which browsers ask for on every console load) with 204 and a day of caching, and serves the SVG icon the page links', async () => {
    const server = await consoleApp(tempDirectory('console-'));
    const favicon = await server.inject({ method: 'GET', url: '/favicon.ico' });
    expect(favicon.statusCode).toBe(204);
    expect(favicon.body).toBe('');
    expect(favicon.headers['cache-control']).toBe('public, max-age=86400');
    const page = await server.inject({ method: 'GET', url: '/console' });
    expect(page.body).toContain('<link rel="icon" href="/console/icon.svg" type="image/svg+xml">');
    const icon = await server.inject({ method: 'GET', url: '/console/icon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.body).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });
});
