import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { testDatabaseUrl } from '../helpers/testApp.js';

/**
 * The Docker image's build stage compiles only what the Dockerfile copies into it: a bench that
 * imported test/helpers/ (not copied) made `npm run build` fail there with TS2307 while every check
 * on a full checkout passed (rev44 R8), as did chdb's typed import, which the stage's
 * `npm ci --omit=optional` does not install. Docker is not on the machines that run the tests, so this
 * does what the stage does: the files its COPY lines name, in a directory of their own, with the
 * packages `npm ci --omit=optional` installs, and the build's TypeScript compile. Once per CI run:
 * the PostgreSQL server's run of the suite skips it (it involves no database).
 *
 * Where it is not the stage (rev44b R8):
 * - The packages are symlinks to the checkout's node_modules, not an install. tsc resolves a linked
 *   package's own imports from its real path, that node_modules, where the optional packages are
 *   installed: a type that a non-optional package takes from an optional one would resolve here and
 *   be missing in the image (the optional packages are chdb, what only it needs, and native builds).
 *   A real `npm ci --omit=optional` from the npm cache, in a scratch directory, is refused by
 *   npm 11.19.1 before it installs anything, with or without --omit=optional, offline or not: the
 *   lock file lacks 42 other platforms' packages of chdb, oxc-parser and rollup ("Missing:
 *   @chdb/lib-darwin-arm64@ from lock file"; 71 s to say so here). Until the lock file holds them,
 *   linking is what can be done.
 * - Only the compile: not the rest of `npm run build` (esbuild's bundle needs its platform binary,
 *   an optional package the stage gets from esbuild's install script: see the Dockerfile).
 * - The bound: the compile took 9.6 s on a 2-core machine at load average 2.4 (session 45); 240 s
 *   is 25 times that.
 */

/** The Dockerfile's first stage: its lines up to the next FROM. */
function buildStage(dockerfile: string): string[] {
  return dockerfile.split(/^FROM\s.*$/m)[1]!.split('\n');
}

/** The build stage's COPY lines, as [sources, destination]. */
function buildStageCopies(stage: string[]): { sources: string[]; destination: string }[] {
  return stage
    .filter((line) => /^COPY\s/.test(line))
    .map((line) => {
      const words = line.trim().split(/\s+/).slice(1);
      // --from, --chown, --link…: what they mean is for whoever adds one to teach this test.
      if (words.some((word) => word.startsWith('--'))) throw new Error(`a COPY line this test does not read: ${line}`);
      return { sources: words.slice(0, -1), destination: words.at(-1)! };
    });
}

/**
 * Links node_modules' packages into `target` as the stage's `npm ci` leaves them: with --omit=optional,
 * without the ones the lock file marks optional (chdb among them: its types are then missing too).
 */
function linkInstalledPackages(target: string, omitOptional: boolean): void {
  const lock = JSON.parse(readFileSync(path.join(packageRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { optional?: boolean }> };
  const optional = new Set(Object.entries(lock.packages).filter(([, entry]) => omitOptional && entry.optional).map(([key]) => key));
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

describe.skipIf(testDatabaseUrl)("the Docker image's build stage", () => {
  it('compiles what the Dockerfile copies into it with the build\'s tsconfig, and nothing more', async () => {
    const stage = tempDirectory('image-build-');
    const stageLines = buildStage(readFileSync(path.join(packageRoot, 'Dockerfile'), 'utf8'));
    const install = stageLines.find((line) => /^RUN npm ci\b/.test(line));
    expect(install, 'the build stage installs with npm ci').toBeDefined();
    const copies = buildStageCopies(stageLines);
    expect(copies.flatMap((copy) => copy.sources)).toEqual(expect.arrayContaining(['tsconfig.build.json', 'src']));
    for (const { sources, destination } of copies) {
      // WORKDIR /app: a destination is relative to it; `./` (or several sources) takes each by its name.
      const intoDirectory = destination.endsWith('/') || sources.length > 1;
      for (const source of sources) {
        const to = path.join(stage, destination, intoDirectory ? path.basename(source) : '');
        cpSync(path.join(packageRoot, source), to, { recursive: true });
      }
    }
    linkInstalledPackages(stage, /\s--omit=optional\b/.test(install!));
    // The build script's compile, as `npm run build` starts it (its output is not needed: --noEmit).
    const build = (JSON.parse(readFileSync(path.join(stage, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
    const compile = /^tsc (-p \S+)/.exec(build);
    expect(compile, build).not.toBeNull();
    const tsc = path.join(stage, 'node_modules', '.bin', 'tsc');
    const outcome = await promisify(execFile)(tsc, [...compile![1]!.split(' '), '--noEmit'], { cwd: stage, maxBuffer: 16 * 1024 * 1024 }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(outcome).toBe('');
  }, 240_000);
});
