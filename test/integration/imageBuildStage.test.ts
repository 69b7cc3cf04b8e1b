import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { testDatabaseUrl } from '../helpers/testApp.js';

/**
 * The Docker image's build stage builds only what the Dockerfile copies into it, with what its own
 * install line installs: a bench that imported test/helpers/ (not copied) made `npm run build` fail
 * there with TS2307 while every check on a full checkout passed (rev44 R8), as did chdb's typed
 * import (chdb is optional, and the stage omits optional packages), and `npm ci` refusing this lock
 * file stopped the image at its first step (session 45). Docker is not on the machines that run the
 * tests, so this does what the stage does, in a directory of its own standing for WORKDIR /app: the
 * stage's lines in order, each COPY from the checkout, each RUN as written with `sh -c` (the install
 * line, then `npm run build && npm prune ...`), and then the built service, run with the node_modules
 * the final stage copies, prints its usage. Once per CI run: the PostgreSQL server's run of the
 * suite skips it (it involves no database).
 *
 * Where it is not the stage:
 * - npm and node are this machine's (npm 11 here; node:20's image has npm 10, which runs every
 *   install script; npm 11.19.1 warns "install-scripts ... not yet covered by allowScripts" but runs
 *   them too: esbuild's postinstall, which fetches its platform binary that --omit=optional leaves
 *   out, left both esbuild@0.28.2's and tsx's esbuild@0.25.12's native binaries in place).
 * - npm reads packages from its cache first (prefer-offline), which .ci/run's install of the whole
 *   lock has just filled, and goes to the registry only for what the cache lacks. Where neither
 *   can give a package (a network error: a machine with an empty cache and no registry), the install
 *   cannot be tried here: the test then says so on stderr and checks what it can without one, the
 *   build's TypeScript compile with the checkout's packages linked in (less faithful: tsc resolves a
 *   linked package's own imports from the checkout, where the optional packages are installed).
 *   With npm's default retries, an empty cache and a registry refusing connections (port 9) had npm
 *   still retrying when the 600 s bound ended the test (session 45): the install now runs with no
 *   retries and a 30 s fetch timeout (a registry that answers is used as before): the same case
 *   now reaches the linked check and passes in 16 s, saying why on stderr.
 * - The bound: the whole test took 23.7 s on a 2-core machine under the CPU lock (session 45: the
 *   install 16 s from the cache, npm ci refusing the lock in 1 s); 600 s is 25 times that.
 */

type Instruction = { keyword: string; rest: string; line: string };

/** The Dockerfile's stage `index` (0 the first): its instructions, comment lines dropped and continued lines joined. */
function stage(dockerfile: string, index: number): Instruction[] {
  const text = dockerfile.split(/^FROM\s.*$/m)[index + 1]!;
  return text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [, keyword, rest] = /^(\S+)\s+(.*)$/.exec(line)!;
      return { keyword: keyword!.toUpperCase(), rest: rest!, line };
    });
}

/** A COPY line as [sources, destination]. */
function copyOf({ rest, line }: Instruction): { sources: string[]; destination: string } {
  const words = rest.split(/\s+/);
  // --from, --chown, --link…: what they mean is for whoever adds one to teach this test.
  if (words.some((word) => word.startsWith('--'))) throw new Error(`a COPY line this test does not read: ${line}`);
  return { sources: words.slice(0, -1), destination: words.at(-1)! };
}

/** Copies from the checkout into `target` (standing for WORKDIR /app) as Docker's COPY does. */
function copyInto(target: string, { sources, destination }: { sources: string[]; destination: string }): void {
  // A destination is relative to WORKDIR; `./` (or several sources) takes each by its name.
  const intoDirectory = destination.endsWith('/') || sources.length > 1;
  for (const source of sources) cpSync(path.join(packageRoot, source), path.join(target, destination, intoDirectory ? path.basename(source) : ''), { recursive: true });
}

/**
 * The environment a RUN line sees: Docker's has no npm_* variables, but vitest under `npm test`
 * inherits npm's (npm_config_local_prefix among them, which would point a nested npm at the
 * checkout). Kept: where the cache and the registry are, which say where packages come from, not
 * what is installed.
 */
function runEnvironment(): NodeJS.ProcessEnv {
  const kept = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) || kept.has(name.toLowerCase())));
  // No retries and a bounded wait: where no registry answers, npm would otherwise retry for minutes
  // before the install could be judged unavailable (rev45b B2).
  return { ...env, npm_config_prefer_offline: 'true', npm_config_fetch_retries: '0', npm_config_fetch_timeout: '30000' };
}

/** Why an install could not be tried here (a package neither the cache nor a registry could give), or undefined. */
function unavailable(output: string): string | undefined {
  return /\b(ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b/.exec(output)?.[0];
}

const run = promisify(execFile);
const outputOf = (error: { stdout?: string; stderr?: string; message: string }) => `${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`;

/**
 * Links node_modules' packages into `target` as an install with --omit=optional leaves them: without
 * the ones the lock file marks optional (chdb among them: its types are then missing too).
 */
function linkInstalledPackages(target: string): void {
  const lock = JSON.parse(readFileSync(path.join(packageRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { optional?: boolean }> };
  const optional = new Set(Object.entries(lock.packages).filter(([, entry]) => entry.optional).map(([key]) => key));
  const installed = path.join(packageRoot, 'node_modules');
  const link = (name: string) => {
    if (!optional.has(`node_modules/${name}`)) symlinkSync(path.join(installed, name), path.join(target, 'node_modules', name));
  };
  mkdirSync(path.join(target, 'node_modules'));
  for (const entry of readdirSync(installed)) {
    if (!entry.startsWith('@')) {
      link(entry);
      continue;
    }
    mkdirSync(path.join(target, 'node_modules', entry));
    for (const scoped of readdirSync(path.join(installed, entry))) link(`${entry}/${scoped}`);
  }
}

/** Without an install: the stage's copies, the checkout's packages linked, and the build script's compile. */
async function compileWithLinkedPackages(build: Instruction[]): Promise<string> {
  const target = tempDirectory('image-build-linked-');
  for (const instruction of build) if (instruction.keyword === 'COPY') copyInto(target, copyOf(instruction));
  expect(build.find((instruction) => instruction.keyword === 'RUN')?.rest, 'the stage installs without optional packages').toMatch(/\s--omit=optional\b/);
  linkInstalledPackages(target);
  // The build script's compile, as `npm run build` starts it (its output is not needed: --noEmit).
  const script = (JSON.parse(readFileSync(path.join(target, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
  const compile = /^tsc (-p \S+)/.exec(script);
  expect(compile, script).not.toBeNull();
  return run(path.join(target, 'node_modules', '.bin', 'tsc'), [...compile![1]!.split(' '), '--noEmit'], { cwd: target, maxBuffer: 16 * 1024 * 1024 }).then(
    () => '',
    (error: { stdout?: string; stderr?: string; message: string }) => outputOf(error),
  );
}

describe.skipIf(testDatabaseUrl)("the Docker image's build stage", () => {
  it('installs, builds and prunes as its lines say, from only what it copies, and the built service starts', async () => {
    const dockerfile = readFileSync(path.join(packageRoot, 'Dockerfile'), 'utf8');
    const build = stage(dockerfile, 0);
    const app = tempDirectory('image-build-');
    const env = runEnvironment();
    for (const instruction of build) {
      if (instruction.keyword === 'WORKDIR') expect(instruction.rest, 'the directory standing for the stage\'s WORKDIR').toBe('/app');
      else if (instruction.keyword === 'COPY') copyInto(app, copyOf(instruction));
      else if (instruction.keyword === 'RUN' && !instruction.rest.startsWith('[')) {
        const failed = await run('sh', ['-c', instruction.rest], { cwd: app, env, maxBuffer: 64 * 1024 * 1024 }).then(
          () => undefined,
          (error: { stdout?: string; stderr?: string; message: string }) => outputOf(error),
        );
        const cause = failed === undefined ? undefined : unavailable(failed);
        if (cause) {
          console.warn(`imageBuildStage: "${instruction.line}" could not get its packages here (${cause}: no npm cache and no registry?), so only the build's TypeScript compile is checked, with the checkout's packages linked in, not installed`);
          expect(await compileWithLinkedPackages(build)).toBe('');
          return;
        }
        expect(failed, instruction.line).toBeUndefined();
      } else throw new Error(`a line this test does not read: ${instruction.line}`);
    }
    // The final stage copies this node_modules and dist and starts its CMD's script; without stores
    // it can show its usage, which loads the whole bundle and its external packages.
    const command = JSON.parse(stage(dockerfile, 1).find((instruction) => instruction.keyword === 'CMD')!.rest) as string[];
    expect(command.slice(0, 1)).toEqual(['node']);
    const usage = await run('node', [command[1]!, '--help'], { cwd: app, env: { ...env, NODE_ENV: 'production' } });
    expect(usage.stdout).toMatch(/^usage:\n\s+adsvc serve\s/);
  }, 600_000);
});
