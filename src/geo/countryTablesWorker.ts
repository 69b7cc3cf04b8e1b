import { parentPort } from 'node:worker_threads';
import { countryTables, type CountryTablesMessage } from './countryOfAddress.js';
import { loadPrebuiltTables } from '../ivt/prebuiltTables.js';

// Run by loadCountryTables in a worker thread: loads the tables (prebuiltTables.ts) and sends their
// arrays back (moved, not copied), with why they were built from the CSV files if they were.
let built: string | undefined;
const { ipv4, ipv6 } = loadPrebuiltTables(countryTables, (why) => (built = why));
const message: CountryTablesMessage = { ipv4: ipv4.parts(), ipv6: ipv6.parts(), built };
const buffers = [message.ipv4, message.ipv6].flatMap((table) => [table.starts.buffer, table.ends.buffer, table.labelIndexes.buffer]);
parentPort!.postMessage(message, buffers as ArrayBuffer[]);
