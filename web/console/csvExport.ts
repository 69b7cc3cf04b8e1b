import { apiStream, query } from './api.js';
import type { Session } from './session.js';

/** Rows one CSV request asks for: the most the reporting routes give in one CSV page. */
const ROWS_PER_REQUEST = 100_000;
/** Bytes held in the page before they are handed to a Blob, which the browser may keep out of the page's memory. */
const BYTES_PER_PART = 4 * 1024 * 1024;

const QUOTE = 0x22;
const LINE_FEED = 0x0a;

/**
 * Every row of a reporting CSV export as one file: the route answers at most ROWS_PER_REQUEST rows
 * a request and no cursor in CSV, and a page with fewer data lines than it asked for is the last
 * (docs/reporting.md), so pages are asked for one after the other by offset until one comes back
 * short. The header line is kept from the first page only. Each answer is read as a stream, its
 * lines counted on the way (a line break inside a quoted field is no line), and its bytes moved
 * into Blobs every few MiB, so a long export does not build up in the page's memory.
 */
async function csvExport(session: Session, path: string, params: Record<string, string | number | undefined>): Promise<Blob> {
  const parts: BlobPart[] = [];
  for (let offset = 0; ; offset += ROWS_PER_REQUEST) {
    const body = await apiStream(session, `${path}${query({ ...params, limit: ROWS_PER_REQUEST, offset: offset || undefined })}`, 'text/csv');
    const lines = await collectCsv(body, parts, offset > 0);
    // The header line is one of the lines counted.
    if (lines - 1 < ROWS_PER_REQUEST) break;
  }
  return new Blob(parts, { type: 'text/csv' });
}

/** Reads one CSV answer into `parts` (without its header line when skipHeader); resolves to its number of lines. */
async function collectCsv(body: ReadableStream<Uint8Array<ArrayBuffer>>, parts: BlobPart[], skipHeader: boolean): Promise<number> {
  const reader = body.getReader();
  let pending: Uint8Array<ArrayBuffer>[] = [];
  let pendingBytes = 0;
  let lines = 0;
  let quoted = false;
  let inHeader = skipHeader;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let keepFrom = 0;
    for (let at = 0; at < value.length; at += 1) {
      const byte = value[at];
      if (byte === QUOTE) quoted = !quoted;
      else if (byte === LINE_FEED && !quoted) {
        lines += 1;
        if (inHeader) {
          inHeader = false;
          keepFrom = at + 1;
        }
      }
    }
    if (inHeader) continue;
    pending.push(keepFrom === 0 ? value : value.slice(keepFrom));
    pendingBytes += value.length - keepFrom;
    if (pendingBytes >= BYTES_PER_PART) {
      parts.push(new Blob(pending));
      pending = [];
      pendingBytes = 0;
    }
  }
  if (pending.length > 0) parts.push(new Blob(pending));
  return lines;
}

/** Saves a CSV export, every row of it: fetched with the session's key (a plain link could not send the header). */
export async function downloadCsv(session: Session, path: string, params: Record<string, string | number | undefined>, filename: string): Promise<void> {
  saveFile(await csvExport(session, path, params), filename);
}

/**
 * Saves the audit export of one campaign (GET /v1/advertiser/reporting/events as CSV): the route
 * streams every event of the window in one answer, without paging, which is read into Blobs as the
 * reports' pages are.
 */
export async function downloadEventsCsv(session: Session, params: { campaign_id: string; date_from: string; date_to: string }, filename: string): Promise<void> {
  const parts: BlobPart[] = [];
  await collectCsv(await apiStream(session, `/v1/advertiser/reporting/events${query(params)}`, 'text/csv'), parts, false);
  saveFile(new Blob(parts, { type: 'text/csv' }), filename);
}

function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
