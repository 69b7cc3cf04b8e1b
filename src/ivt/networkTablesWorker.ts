import { parentPort, workerData } from 'node:worker_threads';
import { loadNetworkTables, networkTableParts, type NetworkTablesInput } from './networkTables.js';

// Run by loadNetworkTablesInWorker: builds the tables and sends their arrays back (moved, not
// copied). A failure sends null: the caller builds them itself, which throws the error (a bad CIDR
// file names its file and line) where the start reports it.
const { dataDir, extraCidrFiles } = workerData as NetworkTablesInput;
let built: ReturnType<typeof networkTableParts> | undefined;
try {
  built = networkTableParts(loadNetworkTables(dataDir, extraCidrFiles));
} catch {
  built = undefined;
}
if (built) {
  const { buffers, ...parts } = built;
  parentPort!.postMessage(parts, buffers);
} else {
  parentPort!.postMessage(null);
}
