import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { packageRoot } from '../../src/packageRoot.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp();
});

afterAll(async () => {
  await ctx?.close();
});

const source = readFileSync(path.join(packageRoot, 'public', 'sdk', 'render-v1.js'), 'utf8');
/** The script without its comments, which name the calls it must not make. */
const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

describe('GET /sdk/v1/render.js', () => {
  it('serves public/sdk/render-v1.js as JavaScript to any origin, cached for an hour and never as immutable (v1 changes in place)', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/sdk/v1/render.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe('public, max-age=3600');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers.etag).toMatch(/^"[\w-]{27}"$/);
    expect(response.body).toBe(source);
  });

  it('answers 304 with no body to a matching If-None-Match, strong or weak, and 200 to another tag', async () => {
    const first = await ctx.app.inject({ method: 'GET', url: '/sdk/v1/render.js' });
    const etag = first.headers.etag as string;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const cached = await ctx.app.inject({ method: 'GET', url: '/sdk/v1/render.js', headers: { 'if-none-match': tag } });
      expect(cached.statusCode, tag).toBe(304);
      expect(cached.body).toBe('');
      expect(cached.headers.etag).toBe(etag);
    }
    const stale = await ctx.app.inject({ method: 'GET', url: '/sdk/v1/render.js', headers: { 'if-none-match': '"other"' } });
    expect(stale.statusCode).toBe(200);
  });

  it('is only served under its version: /sdk/render.js is 404', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/sdk/render.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
  });
});

describe('the render kit script', () => {
  it('defines window.adsvc.render without touching anything else, and keeps what window.adsvc already held', () => {
    const window = { adsvc: { existing: true } } as Record<string, unknown>;
    vm.runInNewContext(source, { window });
    expect(Object.keys(window)).toEqual(['adsvc']);
    expect(window.adsvc).toEqual({ existing: true, render: expect.any(Function), renderVersion: '1' });
  });

  it('builds the card from text nodes only: no innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
    expect(code).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
  });

  it('fires the impression with an Image, never with fetch, XMLHttpRequest or sendBeacon', () => {
    expect(code).toMatch(/new Image\(\)/);
    expect(code).not.toMatch(/fetch\(|XMLHttpRequest|sendBeacon/);
  });
});
