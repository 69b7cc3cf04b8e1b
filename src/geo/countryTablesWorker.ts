import { parentPort } from 'node:worker_threads';
import { buildCountryTables } from './countryOfAddress.js';

// Run by loadCountryTables in a worker thread: builds the tables and sends their arrays back (moved, not copied).
const { ipv4, ipv6 } = buildCountryTables();
const parts = { ipv4: ipv4.parts(), ipv6: ipv6.parts() };
const buffers = [parts.ipv4, parts.ipv6].flatMap((table) => [table.starts.buffer, table.ends.buffer, table.labelIndexes.buffer]);
parentPort!.postMessage(parts, buffers as ArrayBuffer[]);
