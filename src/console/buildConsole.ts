import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { packageRoot } from '../packageRoot.js';
import { CONSOLE_BUILD_DIR } from './consoleRoutes.js';

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
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();
