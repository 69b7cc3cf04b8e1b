import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

/** A server the bench started as a child process, listening on loopback. */
export interface ListeningProcess {
  baseUrl: string;
  child: ChildProcess;
  /** SIGTERM, then waits for a clean exit (the service flushes its events first); SIGKILL after the grace time. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  label: string;
  /** Node flags (--cpu-prof, --expose-gc, --import ...) before the script. */
  nodeFlags?: string[];
  script: string;
  args?: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  /** The path polled until it answers 200. */
  readyPath: string;
  readyTimeoutMs?: number;
  /** Gives the child an IPC channel (the heap probe answers on it). */
  ipc?: boolean;
}

const STOP_GRACE_MS = 120_000;

// Whatever happens to the bench, nothing it started outlives it.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** A port nobody listens on right now, on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts `node <flags> <script> <args>` and resolves once readyPath answers 200. The child's own
 * output goes to our stderr, prefixed with its label, so warnings from the service stay visible
 * next to the figures without mixing into the tables on stdout.
 */
export async function startListeningProcess(options: StartOptions): Promise<ListeningProcess> {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), options.script, ...(options.args ?? [])], {
    env: options.env,
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // The first line a failed start printed is usually its reason (the stack follows it).
  let firstLine: string | undefined;
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (text: string) => {
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        firstLine ??= line;
        process.stderr.write(`[${options.label}] ${line}\n`);
      }
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 180_000);
  let exitedEarly = false;
  void exited.then(() => {
    exitedEarly = true;
  });
  while (!(await answers200(baseUrl + options.readyPath))) {
    if (exitedEarly) throw new Error(`${options.label} exited before it was ready (exit code ${child.exitCode}): ${firstLine ?? 'no output'}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${options.label} was not ready within ${options.readyTimeoutMs ?? 180_000} ms`);
    }
    await sleep(100);
  }
  return { baseUrl, child, stop };
}

async function answers200(url: string): Promise<boolean> {
  try {
    const response = await request(url, { headersTimeout: 2000, bodyTimeout: 2000 });
    await response.body.dump();
    return response.statusCode === 200;
  } catch {
    return false;
  }
}
