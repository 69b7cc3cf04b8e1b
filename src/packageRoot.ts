import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json, found from this file both in src/ (tsx, vitest) and in dist/src/ (built). */
function findPackageRoot(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    directory = parent;
  }
  return directory;
}

export const packageRoot = findPackageRoot();
