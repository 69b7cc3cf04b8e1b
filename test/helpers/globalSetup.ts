import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';

/**
 * PGlite's first open of a directory runs initdb (seconds, in WASM). Do it once: every test file
 * copies this closed template directory and runs the migrations on its copy.
 */
export default async function setup(project: TestProject) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'adsvc-test-'));
  const template = path.join(root, 'pglite-template');
  const db = await PGlite.create(template);
  await db.close();
  project.provide('pgliteTemplate', template);
  project.provide('testRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    testRoot: string;
  }
}
