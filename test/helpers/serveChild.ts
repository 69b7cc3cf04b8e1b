import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { eventually } from './eventually.js';
import { freePort } from './freePort.js';

/**
 * `adsvc serve` as a process of its own on `dataDir` (embedded engines), healthy before this
 * returns, killed when the test finishes (before cleanups the test registered earlier, such as
 * unmounting its disk: onTestFinished hooks run last registered first), with `env` added to its
 * environment. A process of its own, so
 * that a request that never returns fails the test instead of holding the test runner's thread.
 */
export async function startServeChild(dataDir: string, adminToken: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'src/main.ts'), 'serve'], {
    cwd: packageRoot,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), ADMIN_TOKEN: adminToken, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (said += chunk.toString()));
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  await eventually(() => fetch(`${url}/healthz`).then((response) => (response.ok ? true : undefined), () => undefined), 'adsvc serve to become healthy', 60_000, 200);

  // Each request bounded well under the watchdog's 30 s: one that never returns fails there, not by the process ending.
  const send = (method: string, route: string, auth: Record<string, string>, body: unknown) =>
    fetch(`${url}${route}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
  const admin = { authorization: `Bearer ${adminToken}` };
  /** The data of an answer that must be 201. */
  const created = async <Data = { id: string; key: string }>(response: Promise<Response>) => {
    const answer = await response;
    expect(answer.status, await answer.clone().text()).toBe(201);
    return ((await answer.json()) as { data: Data }).data;
  };
  /** What the process has written to stdout and stderr so far. */
  const output = () => said;
  return { url, send, admin, created, output, child };
}
