import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, inject } from 'vitest';

/** The directories tempDirectory() made for this test file (every file runs in a process of its own). */
const made: string[] = [];

// Registered when a test file first imports this module, so on that file's own suite; after hooks
// run in reverse order, so this one runs after the file's own (which close what uses the directories).
afterAll(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/**
 * A new empty directory for a test's files: under the run's test root, which globalSetup removes
 * when the run ends, and removed when this file's tests are done, so a run leaves nothing in /tmp
 * and a long one does not pile up the directories of every file.
 */
export function tempDirectory(prefix: string): string {
  const directory = mkdtempSync(path.join(inject('testRoot'), prefix));
  made.push(directory);
  return directory;
}
