import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { csvRecord, type CsvField } from './csvFormat.js';
import { exportedEventColumns, type ExportedEvent } from './eventExport.js';
import { downloadPieces, type StreamedDownloads } from '../http/streamedDownloads.js';

export type ExportFormat = 'ndjson' | 'csv';

/** CSV when the Accept header prefers it; NDJSON otherwise. */
export function negotiatedExportFormat(request: FastifyRequest): ExportFormat {
  return new Negotiator(request).mediaType(['application/x-ndjson', 'text/csv']) === 'text/csv' ? 'csv' : 'ndjson';
}

/**
 * Streams the pages as NDJSON (one event object a line) or CSV (a header line, then one record an
 * event), page by page in pieces (streamedDownloads.ts), so memory holds about one page whatever
 * the window and however slowly the client reads. The first page is read before anything is sent, so a failing query
 * still answers a clean 500 (or 503); a later failure fails the stream, and fastify then destroys
 * the response (and warns): the chunked body ends without its last chunk, so the client sees an
 * incomplete download, never a shorter one that looks whole.
 */
export async function sendEventExport(
  reply: FastifyReply,
  format: ExportFormat,
  pages: AsyncGenerator<ExportedEvent[]>,
  filename: string,
  downloads: StreamedDownloads,
  who: Record<string, string>,
): Promise<FastifyReply> {
  return downloads.download(reply, who, async () => {
    const first = await pages.next();
    const encode =
      format === 'csv'
        ? (event: ExportedEvent) => csvRecord(exportedEventColumns.map((column) => event[column] as CsvField))
        : (event: ExportedEvent) => `${JSON.stringify(event)}\n`;
    // Let go once sent: were the body to read `first`, the whole download would keep that page.
    let firstPage = first.done ? undefined : first.value;
    async function* body(): AsyncGenerator<string> {
      if (format === 'csv') yield csvRecord(exportedEventColumns);
      if (firstPage === undefined) return;
      const sending = firstPage;
      firstPage = undefined;
      yield* downloadPieces(sending, encode);
      for await (const page of pages) yield* downloadPieces(page, encode);
    }
    reply
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename}.${format === 'csv' ? 'csv' : 'ndjson'}"`);
    return body();
  });
}
