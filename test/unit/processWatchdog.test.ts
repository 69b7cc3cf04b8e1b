import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';

function runStalled(stallMs: number, timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: Array<Record<string, unknown>>; stalls?: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'test/helpers/stalledMainThreadChild.ts'), String(stallMs), String(timeoutMs)], {
    cwd: packageRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
      const stalls = /^stalls (\d+)$/m.exec(stdout)?.[1];
      resolve({ code, signal, lines, stalls: stalls === undefined ? undefined : Number(stalls) });
    }),
  );
}

// The watchdog ends a process whose main thread stops for WATCHDOG_TIMEOUT_MS (serverProcess.test.ts);
// a stall of 5 s that ends before that is warned of once and counted, so an operator sees a thread
// nearing the limit before it is killed.
it('warns once and counts a stall of the main thread of 5 s that ends before WATCHDOG_TIMEOUT_MS', async () => {
  const { code, lines, stalls } = await runStalled(7_500, 30_000);
  expect(code).toBe(0);
  expect(stalls).toBe(1);
  const warnings = lines.filter((line) => line.level === 40);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]!.msg).toMatch(/^the main thread has not turned its event loop for 5 s/);
  expect(lines.some((line) => line.level === 30 && String(line.msg).startsWith('the main thread turned its event loop again'))).toBe(true);
  expect(lines.some((line) => line.level === 60)).toBe(false);
}, 60_000);

it('counts nothing while the main thread turns', async () => {
  const { code, lines, stalls } = await runStalled(0, 30_000);
  expect(code).toBe(0);
  expect(stalls).toBe(0);
  expect(lines).toEqual([]);
}, 60_000);
