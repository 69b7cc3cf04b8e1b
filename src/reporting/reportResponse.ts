import type { FastifyReply } from 'fastify';
import { csvRecord, type CsvField } from './csvFormat.js';
import type { ReportFormat } from './reportingParams.js';
import { downloadPieces, type StreamedDownloads } from '../http/streamedDownloads.js';

const COMMA = Buffer.from(',');

export interface Report<Row> {
  format: ReportFormat;
  /** The row fields, in order: CSV columns. */
  columns: ReadonlyArray<keyof Row & string>;
  batches: AsyncGenerator<Row[]>;
  limit: number;
  offset: number;
  /** Echo of the applied parameters (JSON only). */
  query: Record<string, unknown>;
  /** Suggested file name of a CSV download. */
  filename: string;
  /** The next page's cursor once every batch was read (lists with keyset paging; JSON only). */
  nextCursor?: () => string | null;
  /** A row's JSON as UTF-8, when the report keeps it (JSON only; otherwise the answer is serialized whole). */
  rowJson?: (row: Row) => Buffer;
  /** Sends a CSV answer, and who asked for it, named if its client stops reading. */
  download: { downloads: StreamedDownloads; who: Record<string, string> };
}

/**
 * JSON: `{data, pagination, query}`, pagination as the spec defines it (total is the number of rows
 * on this page, has_more is total == limit). CSV: a header line and the same rows, streamed batch by
 * batch in pieces (streamedDownloads.ts). The first batch is read before anything is sent, so a
 * failing query still answers a clean 500 (or 503); a failure later can only cut the stream: fastify
 * destroys the response without the chunked body's last chunk, which the client sees as an
 * incomplete download.
 */
export async function sendReport<Row extends object>(reply: FastifyReply, report: Report<Row>): Promise<FastifyReply> {
  if (report.format === 'json') {
    const data: Row[] = [];
    for await (const batch of report.batches) data.push(...batch);
    const hasMore = data.length === report.limit;
    const base = { limit: report.limit, offset: report.offset, total: data.length, has_more: hasMore };
    const pagination = report.nextCursor ? { ...base, next_cursor: hasMore ? report.nextCursor() : null } : base;
    if (report.rowJson === undefined) return reply.send({ data, pagination, query: report.query });
    // The bytes JSON.stringify's text would be, copied from the rows' kept JSON: no text of the
    // whole answer to build, measure and encode (about 2.5 ms of a 1,000-row page).
    const parts: Buffer[] = [Buffer.from('{"data":[')];
    data.forEach((row, index) => {
      if (index > 0) parts.push(COMMA);
      parts.push(report.rowJson!(row));
    });
    parts.push(Buffer.from(`],"pagination":${JSON.stringify(pagination)},"query":${JSON.stringify(report.query)}}`));
    return reply.type('application/json; charset=utf-8').send(Buffer.concat(parts));
  }
  return report.download.downloads.download(reply, report.download.who, async () => {
    const first = await report.batches.next();
    const toCsv = (rows: Row[]) => downloadPieces(rows, (row) => csvRecord(report.columns.map((column) => row[column] as CsvField)));
    // Let go once sent: were the body to read `first`, the whole download would keep that batch.
    let firstBatch = first.done ? undefined : first.value;
    async function* csv(): AsyncGenerator<string> {
      yield csvRecord(report.columns);
      if (firstBatch === undefined) return;
      const sending = firstBatch;
      firstBatch = undefined;
      yield* toCsv(sending);
      for await (const batch of report.batches) yield* toCsv(batch);
    }
    reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${report.filename}"`);
    return csv();
  });
}
