import { readFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { packageRoot } from './packageRoot.js';

/**
 * Packages left out of the bundle, loaded from node_modules as before: PGlite finds its WebAssembly
 * and data files beside its own module, chdb is a native addon (optional, absent from the Docker
 * image), pg and undici are imported only when used (a PostgreSQL server, the admin CLI), and pino
 * and thread-stream start a transport's worker from a file they find by `__dirname`, which a bundle
 * does not have (no transport is configured today: left out so that one never breaks the bundle;
 * `adsvc --help` loads in the same 0.23 s either way).
 */
const EXTERNAL = ['@electric-sql/pglite', 'chdb', 'pg', 'undici', 'pino', 'thread-stream'];

/**
 * Bundles the service's entry (`entry`, src/main.ts's compiled dist/src/main.js for `npm run build`)
 * and the packages it imports into one file, `outfile`: a start then loads one file instead of
 * about 340 modules, 0.15-0.2 s less of every start. The per-file output stays as it was: the
 * worker threads, the bench and the tests run it. Each of the project's files keeps its own
 * `import.meta.url` (rewritten to its own file's URL, relative to the bundle's), so whatever it
 * finds beside itself (a worker's file, the prebuilt tables, the code a key hashes, package.json)
 * is found where it was. Run by `npm run build` only: esbuild is a development dependency.
 */
export async function buildServerBundle(entry: string, outfile: string): Promise<void> {
  const ownFolder = realpathSync(path.dirname(entry)) + path.sep;
  const ownUrl: Plugin = {
    name: 'own-import-meta-url',
    setup(bundler) {
      bundler.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (!args.path.startsWith(ownFolder)) return undefined;
        const text = await readFile(args.path, 'utf8');
        const relative = path.relative(path.dirname(outfile), args.path).split(path.sep).join('/');
        const url = `new URL(${JSON.stringify(relative.startsWith('.') ? relative : `./${relative}`)}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
      });
    },
  };
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    // The packages written as CommonJS require Node's own modules, which an ES module has no
    // `require` for: give the bundle one.
    banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module';\nconst require = createRequireOfBundle(import.meta.url);" },
    plugins: [ownUrl],
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildServerBundle(path.join(packageRoot, 'dist', 'src', 'main.js'), path.join(packageRoot, 'dist', 'adsvc.js'));
}
