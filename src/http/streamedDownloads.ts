import { finished, Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { ApiError } from './errors.js';

/**
 * Characters of text a streamed download hands the socket at a time. Whole pages as pieces made a
 * client that stops reading hold two pages of text (one in the socket, one read ahead) beside the
 * page of rows being encoded; pieces this small leave about that page of rows alone. They also
 * make the socket drain every 16 KB a slow client reads, so the stall timeout sees its progress.
 */
const DOWNLOAD_PIECE_CHARS = 16 * 1024;

/**
 * The items encoded in pieces of about DOWNLOAD_PIECE_CHARS, a record never cut (a character never
 * either). Each item is encoded when its piece is made: a page's text is never whole in memory.
 */
export function* downloadPieces<Item>(items: Iterable<Item>, encode: (item: Item) => string): Generator<string> {
  let piece = '';
  for (const item of items) {
    piece += encode(item);
    if (piece.length >= DOWNLOAD_PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  if (piece !== '') yield piece;
}

interface OpenDownload {
  /** Characters of text the body has produced. */
  produced: number;
  /** What the socket had completed writing when the download began (a kept-alive connection's earlier answers). */
  socketStart: number;
  socket: { bytesWritten: number; writableLength: number } | null;
}

/**
 * The streamed downloads (CSV reports, the audit export) this instance is sending. A client that
 * stops reading leaves its answer with the socket; after DOWNLOAD_STALL_TIMEOUT_MS without the
 * socket draining, the answer is destroyed (and logged), so what it held is freed. A slow client
 * whose socket drains now and then is never cut: only time without any progress counts.
 *
 * Each owner (an organization, a publisher, the admin token) holds at most MAX_DOWNLOADS_PER_OWNER
 * downloads at once on this instance: each holds up to a page of its export while its client reads,
 * so one key opening downloads it never reads would otherwise fill the heap in the 2 minutes before
 * the stall timeout frees them (830 of them took 4 GB). A download counts until its response has
 * closed and its page query has returned (download()).
 */
export class StreamedDownloads {
  private readonly open = new Set<OpenDownload>();
  /** Downloads admitted and not yet over (response closed, work settled), by owner; admitted before their first query runs. */
  private readonly admittedByOwner = new Map<string, number>();
  private stalls = 0;
  private refused = 0;

  constructor(
    private readonly stallTimeoutMs: number,
    private readonly maxPerOwner: number,
  ) {}

  /**
   * Sends a download whose first page `start` reads (so that a failing query still answers a clean
   * error) and whose text pieces it returns. Counted against its owner's limit from before `start`
   * runs until both its response has closed and its work has settled: `start`, then the body's
   * reading of later pages. Past the limit it is refused 429 `rate_limited` (with Retry-After) and
   * `start` is not called. The work counts too because a client that hangs up does not stop a query
   * already running: freed at the response's close, a client that opened downloads and hung up in a
   * loop had any number of page queries running, each to hold its page (rev40 R2).
   */
  async download(reply: FastifyReply, who: Record<string, string>, start: () => Promise<AsyncIterable<string>>): Promise<FastifyReply> {
    const settled = this.admit(reply, who);
    let pieces: AsyncIterable<string>;
    try {
      pieces = await start();
    } catch (error) {
      settled();
      throw error;
    }
    return this.send(reply, pieces, who, settled);
  }

  /** Takes a slot of the owner's, or throws; returns what tells it the work settled (the response's close is watched here). */
  private admit(reply: FastifyReply, who: Record<string, string>): () => void {
    const owner = JSON.stringify(who);
    const admitted = this.admittedByOwner.get(owner) ?? 0;
    if (admitted >= this.maxPerOwner) {
      this.refused += 1;
      throw new ApiError(
        'rate_limited',
        `${admitted} downloads are already being sent to this key's ${Object.keys(who).join(', ')} (at most ${this.maxPerOwner} at once); retry when one has finished`,
      );
    }
    this.admittedByOwner.set(owner, admitted + 1);
    let waitingFor = 2;
    const release = () => {
      waitingFor -= 1;
      if (waitingFor > 0) return;
      const left = (this.admittedByOwner.get(owner) ?? 1) - 1;
      if (left > 0) this.admittedByOwner.set(owner, left);
      else this.admittedByOwner.delete(owner);
    };
    // finished() calls back at once for a response already closed: a client that hung up while the
    // request was authenticated never gets a 'close' after this, and held its slot for good (rev40 R1).
    finished(reply.raw, release);
    let workSettled = false;
    return () => {
      if (workSettled) return;
      workSettled = true;
      release();
    };
  }

  /**
   * Sends the text pieces as the reply's body, each read only when the socket has taken the one
   * before; `settled` is called once the body is over, read to its end or, its client gone, stopped
   * after the page query it was waiting for. `who` names the download's owner in the stall warning.
   */
  private send(reply: FastifyReply, pieces: AsyncIterable<string>, who: Record<string, string>, settled: () => void): FastifyReply {
    const response = reply.raw;
    const socket = response.socket;
    const download: OpenDownload = { produced: 0, socketStart: socket ? socket.bytesWritten - socket.writableLength : 0, socket };
    this.open.add(download);
    async function* counted(): AsyncGenerator<string> {
      for await (const piece of pieces) {
        download.produced += piece.length;
        yield piece;
      }
    }
    // Not object mode: the read-ahead is counted in bytes (one piece), not in pieces (16 by default).
    const body = Readable.from(counted(), { objectMode: false, highWaterMark: DOWNLOAD_PIECE_CHARS });
    // A destroyed body closes only once its generator has returned, which waits for a page query in
    // flight: then the work is over.
    finished(body, settled);

    let stalledSince: number | undefined;
    response.on('drain', () => (stalledSince = undefined));
    const watch = setInterval(
      () => {
        if (!response.writableNeedDrain) {
          stalledSince = undefined;
          return;
        }
        const now = Date.now();
        stalledSince ??= now;
        if (now - stalledSince < this.stallTimeoutMs) return;
        this.stalls += 1;
        reply.log.warn(
          { route: reply.request.routeOptions.url, ...who, stalled_ms: now - stalledSince, sent_bytes: this.sentBytes(download) },
          'streamed download destroyed: its client stopped reading',
        );
        response.destroy();
      },
      Math.max(50, Math.floor(this.stallTimeoutMs / 4)),
    ).unref();
    // finished(), not once('close'): the client may have hung up while `start` ran. The body is
    // stopped here, whether or not the framework would: its generator would otherwise wait unread.
    finished(response, () => {
      clearInterval(watch);
      this.open.delete(download);
      body.destroy();
    });
    return reply.send(body);
  }

  /**
   * Bytes of text the open downloads produced that their sockets have not yet handed to the kernel:
   * what clients that read slowly or not at all make this process hold. Approximate by the few
   * bytes of HTTP framing (headers, chunk sizes), and counts characters as bytes (the text is ASCII
   * but for names a client gave).
   */
  stats(): { open: number; heldBytes: number; stalls: number; refused: number } {
    let heldBytes = 0;
    for (const download of this.open) heldBytes += Math.max(0, download.produced - this.sentBytes(download));
    return { open: this.open.size, heldBytes, stalls: this.stalls, refused: this.refused };
  }

  private sentBytes(download: OpenDownload): number {
    const socket = download.socket;
    return socket ? socket.bytesWritten - socket.writableLength - download.socketStart : 0;
  }
}
