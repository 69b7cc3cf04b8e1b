import { defineConfig } from 'vitest/config';

// chdb binds one data directory per process, so every test file runs in its own forked process
// with its own DATA_DIR (see test/helpers/testApp.ts).
export default defineConfig({
  test: {
    pool: 'forks',
    isolate: true,
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    // On a PostgreSQL server, a database of each file's own (test/helpers/fileDatabase.ts).
    setupFiles: ['test/helpers/fileDatabaseSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
