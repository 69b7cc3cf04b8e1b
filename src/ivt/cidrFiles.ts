import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cidrBounds, type CidrBounds } from './addressKeys.js';

/** The folder under DATA_DIR where `npm run ivt:update` writes the providers' range feeds. */
export function rangeFeedDirectory(dataDir: string): string {
  return path.join(dataDir, 'ivt');
}

export interface CidrFile {
  /** The file's name; events matched by one of its ranges store it as their ip_network. */
  label: string;
  ranges: CidrBounds[];
}

/** A CIDR file that cannot be read or holds a bad line: the message names the file (and line), and stops the start with that one line. */
export class CidrFileError extends Error {}

/**
 * Every `*.cidr` file in DATA_DIR/ivt plus the operator's IVT_EXTRA_CIDR_FILES. Format: one CIDR or
 * address a line; `#` starts a comment. A line that is not an address or a CIDR stops the start
 * with its file and line, rather than silently letting traffic through.
 */
export function readCidrFiles(dataDir: string, extraFiles: readonly string[]): CidrFile[] {
  const feedDirectory = rangeFeedDirectory(dataDir);
  const feeds = existsSync(feedDirectory) ? feedFiles(feedDirectory) : [];
  return [...feeds, ...extraFiles].map(readCidrFile);
}

function feedFiles(feedDirectory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(feedDirectory);
  } catch (error) {
    throw new CidrFileError(`cannot read the range feeds' directory ${feedDirectory}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return names
    .filter((name) => name.endsWith('.cidr'))
    .sort()
    .map((name) => path.join(feedDirectory, name));
}

/** One CIDR file; throws naming the file (and the line) when it cannot be read or holds a bad line. */
export function readCidrFile(file: string): CidrFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CidrFileError(`cannot read CIDR file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return { label: path.basename(file), ranges: parseCidrList(text, file) };
}

export function parseCidrList(text: string, source: string): CidrBounds[] {
  const ranges: CidrBounds[] = [];
  text.split('\n').forEach((rawLine, index) => {
    const line = rawLine.replace(/#.*/, '').trim();
    if (line === '') return;
    try {
      ranges.push(cidrBounds(line));
    } catch {
      throw new CidrFileError(`${source}:${index + 1}: not an IP address or CIDR: ${JSON.stringify(line.slice(0, 80))}`);
    }
  });
  return ranges;
}

/** The `.cidr` text for a list of CIDRs, with a header saying where they came from. */
export function formatCidrList(source: string, cidrs: readonly string[], fetchedAt: Date): string {
  return `# ${source}\n# fetched ${fetchedAt.toISOString()} by npm run ivt:update\n${cidrs.join('\n')}\n`;
}
