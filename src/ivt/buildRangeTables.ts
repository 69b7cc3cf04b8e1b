import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countryTables } from '../geo/countryOfAddress.js';
import { asnRanges } from './networkTables.js';
import { writePrebuiltTables, type PrebuiltTables } from './prebuiltTables.js';

/**
 * `npm run build` runs this after compiling: it writes the country tables and the networks' ASN
 * ranges into the files a start reads instead of scanning the CSV files (prebuiltTables.ts), unless
 * they are current already.
 */
function writeRangeTables(): void {
  for (const tables of [countryTables, asnRanges] as PrebuiltTables<unknown>[]) {
    const started = performance.now();
    const wrote = writePrebuiltTables(tables);
    const file = path.relative(process.cwd(), fileURLToPath(tables.file));
    console.log(`${tables.name}: ${wrote ? `wrote ${file} in ${Math.round(performance.now() - started)} ms` : `${file} is current`}`);
  }
}

writeRangeTables();
