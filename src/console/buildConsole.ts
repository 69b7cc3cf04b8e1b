import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { packageRoot } from '../packageRoot.js';
import { CONSOLE_BUILD_DIR } from './consoleRoutes.js';

/**
 * The console reads the reporting rows as the server's own types (`import type` from src/, which
 * esbuild drops); a value import from src/ would put server code in the browser's bundle, so the
 * build refuses it, but for the modules listed here: self-contained (importing none but each other), written for both.
 */
const SHARED_WITH_CONSOLE = new Set([
  // The budget form says what a bid is worth in USD by the service's own rates (convertToUsd).
  'src/money/usdRates',
  // usdRates counts in nano-USD through it.
  'src/money/nanoUsd',
  // The date window and the campaigns page count UTC days as the reporting routes do.
  'src/utcDays',
]);

const typesOnlyFromServer: Plugin = {
  name: 'types only from src/',
  setup(bundle) {
    const serverDir = path.join(packageRoot, 'src') + path.sep;
    bundle.onResolve({ filter: /^\.\.?\// }, (args) => {
      const resolved = path.resolve(args.resolveDir, args.path);
      if (!resolved.startsWith(serverDir)) return undefined;
      if (SHARED_WITH_CONSOLE.has(path.relative(packageRoot, resolved).replace(/\.[jt]s$/, ''))) return undefined;
      return { errors: [{ text: `${path.relative(packageRoot, args.importer)} imports ${args.path}: the console takes only types from src/ (import type), or a module listed in SHARED_WITH_CONSOLE` }] };
    });
  },
};

/**
 * Bundles the browser console (web/console/) into console.js and console.css: Preact, htm and
 * uPlot included, so the console needs nothing from the network but the service itself. Run by
 * `npm run build` only: esbuild is a development dependency, so the service never imports this.
 */
export async function buildConsole(outdir: string = CONSOLE_BUILD_DIR): Promise<void> {
  await build({
    entryPoints: { console: path.join(packageRoot, 'web', 'console', 'main.ts') },
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    outdir,
    logLevel: 'warning',
    plugins: [typesOnlyFromServer],
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();
