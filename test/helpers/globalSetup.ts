import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { dropRunDatabases, runDatabasePrefix } from './fileDatabase.js';

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
  // On a PostgreSQL server, each file's database (fileDatabaseSetup.ts), dropped when the run ends.
  const baseUrl = process.env.ADSVC_TEST_DATABASE_URL || undefined;
  const fileDatabases = baseUrl === undefined ? undefined : { baseUrl, prefix: runDatabasePrefix(baseUrl) };
  project.provide('fileDatabases', fileDatabases);
  return async () => {
    rmSync(root, { recursive: true, force: true });
    if (fileDatabases !== undefined) await dropRunDatabases(fileDatabases.baseUrl, fileDatabases.prefix);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    testRoot: string;
    /** The suite's PostgreSQL server and the name prefix of this run's per-file databases; undefined on PGlite. */
    fileDatabases: { baseUrl: string; prefix: string } | undefined;
  }
}
