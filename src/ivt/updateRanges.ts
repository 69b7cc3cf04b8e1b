import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { formatCidrList, rangeFeedDirectory } from './cidrFiles.js';
import { rangeFeeds, validatedCidrs } from './rangeFeeds.js';

/**
 * `npm run ivt:update`: downloads the providers' published range feeds into DATA_DIR/ivt/<name>.cidr,
 * which the service loads at its next start as data-center space. Each file is replaced atomically
 * and only by a feed that downloaded and parsed whole; a feed that fails keeps its previous file.
 * Exits 1 if any feed failed (for instance on a machine without internet access).
 */
const FETCH_TIMEOUT_MS = 30_000;

async function updateRanges(): Promise<number> {
  const directory = rangeFeedDirectory(loadConfig().DATA_DIR);
  mkdirSync(directory, { recursive: true });
  let failures = 0;
  for (const feed of rangeFeeds) {
    try {
      const response = await fetch(feed.url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const cidrs = validatedCidrs(feed, await response.text());
      const file = path.join(directory, `${feed.name}.cidr`);
      writeFileSync(`${file}.tmp`, formatCidrList(feed.url, cidrs, new Date()));
      renameSync(`${file}.tmp`, file);
      console.log(`${feed.name}: ${cidrs.length} ranges -> ${file}`);
    } catch (error) {
      failures += 1;
      const cause = (error as Error & { cause?: Error }).cause?.message;
      console.error(`${feed.name}: could not update from ${feed.url}: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
    }
  }
  if (failures > 0) {
    console.error(`${failures} of ${rangeFeeds.length} feeds failed; their previous files (if any) are kept. Does this machine reach the internet?`);
    return 1;
  }
  console.log('restart the service to load the new ranges');
  return 0;
}

process.exitCode = await updateRanges();
