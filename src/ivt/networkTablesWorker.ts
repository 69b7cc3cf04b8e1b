import { parentPort, workerData } from 'node:worker_threads';
import { loadNetworkTables, networkTableParts, type NetworkTablesInput, type NetworkTablesMessage } from './networkTables.js';

// Run by loadNetworkTablesInWorker: builds the tables and sends their arrays back (moved, not
// copied), with why the ASN ranges were built from the CSV files if they were. A failure sends
// null: the caller builds them itself, which throws the error (a bad CIDR file names its file and
// line) where the start reports it.
const { dataDir, extraCidrFiles } = workerData as NetworkTablesInput;
let built: string | undefined;
let tables: ReturnType<typeof networkTableParts> | undefined;
try {
  tables = networkTableParts(loadNetworkTables(dataDir, extraCidrFiles, (why) => (built = why)));
} catch {
  tables = undefined;
}
if (tables) {
  const { buffers, ...parts } = tables;
  const message: NetworkTablesMessage = { ...parts, built };
  parentPort!.postMessage(message, buffers);
} else {
  parentPort!.postMessage(null);
}
