import Fastify, { type FastifyInstance, type RouteShorthandOptions } from 'fastify';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyChildLogger } from '../../src/http/lazyRequestLogger.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An app logging JSON lines at info into `lines`, with the same routes made eager (fastify's child) and lazy. */
function appWithRoutes(lines: Array<Record<string, unknown>>): FastifyInstance {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const built = Fastify({ logger: { level: 'info', stream } });
  for (const [prefix, options] of [
    ['eager', { logLevel: 'warn' }],
    ['lazy', { logLevel: 'warn', childLoggerFactory: lazyChildLogger }],
  ] as Array<[string, RouteShorthandOptions]>) {
    built.get(`/${prefix}/logs`, options, async (request) => {
      request.log.info('below the route level');
      request.log.warn({ visitor: 'x' }, 'a warning');
      request.log.child({ part: 'inner' }).error('from a child');
      const log = request.log as typeof request.log & { isLevelEnabled(level: string): boolean };
      return { info: log.isLevelEnabled('info'), warn: log.isLevelEnabled('warn'), level: log.level };
    });
    built.get(`/${prefix}/quiet`, options, async () => 'ok');
    built.get(`/${prefix}/fails`, options, async () => {
      throw new Error('boom');
    });
  }
  return built;
}

/** A line without what differs from request to request. */
function comparable(line: Record<string, unknown>): Record<string, unknown> {
  const { time: _time, reqId, responseTime: _responseTime, pid: _pid, hostname: _hostname, req: _req, err, ...rest } = line;
  return { ...rest, hasReqId: typeof reqId === 'string', err: (err as { message?: string } | undefined)?.message };
}

describe('lazyChildLogger', () => {
  it('writes the lines the eager child writes, with the request id, and answers level questions the same', async () => {
    const lines: Array<Record<string, unknown>> = [];
    app = appWithRoutes(lines);
    const seen: Record<string, unknown[]> = {};
    for (const prefix of ['eager', 'lazy']) {
      const start = lines.length;
      const answers = [];
      for (const path of ['logs', 'quiet', 'fails']) answers.push((await app.inject(`/${prefix}/${path}`)).body);
      seen[prefix] = [answers, lines.slice(start).map(comparable)];
    }
    expect(seen.lazy).toEqual(seen.eager);
    expect(seen.lazy![1]).toEqual([
      expect.objectContaining({ msg: 'a warning', visitor: 'x', hasReqId: true }),
      expect.objectContaining({ msg: 'from a child', part: 'inner', hasReqId: true }),
      expect.objectContaining({ msg: 'boom', err: 'boom', level: 50, hasReqId: true }),
    ]);
    expect(JSON.parse(String((seen.lazy![0] as string[])[0]))).toEqual({ info: false, warn: true, level: 'warn' });
  });

  it('makes no child logger for a request that logs nothing', async () => {
    app = appWithRoutes([]);
    const child = vi.spyOn(app.log, 'child');
    expect((await app.inject('/lazy/quiet')).statusCode).toBe(200);
    expect(child).not.toHaveBeenCalled();
    expect((await app.inject('/eager/quiet')).statusCode).toBe(200);
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('passes through an app without a logger', async () => {
    app = Fastify();
    app.get('/quiet', { logLevel: 'warn', childLoggerFactory: lazyChildLogger }, async (request) => {
      request.log.warn('nowhere');
      return 'ok';
    });
    expect((await app.inject('/quiet')).body).toBe('ok');
  });
});
