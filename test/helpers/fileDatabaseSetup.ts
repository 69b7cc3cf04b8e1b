import { inject } from 'vitest';
import { createFileDatabase } from './fileDatabase.js';

// A setup file: runs in each test file's process before the file's own imports, so testApp.ts and
// every test that reads ADSVC_TEST_DATABASE_URL see this file's own database.
const fileDatabases = inject('fileDatabases');
if (fileDatabases !== undefined) {
  process.env.ADSVC_TEST_DATABASE_URL = await createFileDatabase(fileDatabases.baseUrl, fileDatabases.prefix);
}
