/**
 * Serve ids for the pixels the benches sign, shaped as serving makes them (src/serving/serveId.ts:
 * 16 bytes, base64url, the serve's time in ms in the first 6), so that the service and ClickHouse
 * handle them as they handle real ones: a segment's duplicate check (billedOnce.ts) reads only the
 * slices of serve_events_v1 its serves' times fall in. Until session 41 the benches signed
 * `<prefix><index>`, ids with no time in front, whose few ranges covered every serve of the run,
 * so each insert read all of serve_events_v1 again and the engine's work a pixel grew with the run.
 * Where serving has 10 random bytes, these carry the run's tag (4 bytes, 2 zero) and the pixel's
 * index (4 bytes), so the bench can find the run's stored events and match each to its answer.
 */
const TIME_BYTES = 6;
const TAG_BYTES = 6;
/** Characters of the id before the tag (6 bytes of time: 8 base64url characters) and of the tag itself. */
const TAG_FROM = (TIME_BYTES / 3) * 4;
const TAG_CHARS = (TAG_BYTES / 3) * 4;

/** The run's tag as it appears in each id, from a run id of 8 hex characters (seedTenancy.ts). */
export function serveIdTag(runId: string): string {
  const bytes = Buffer.alloc(TAG_BYTES);
  bytes.write(runId.slice(0, 8), 'hex');
  return bytes.toString('base64url');
}

/** The id of pixel `index` of the run tagged `tag`, served at `servedAtMs`. */
export function benchServeId(servedAtMs: number, tag: string, index: number): string {
  const bytes = Buffer.alloc(TIME_BYTES + TAG_BYTES + 4);
  bytes.writeUIntBE(servedAtMs, 0, TIME_BYTES);
  bytes.write(tag, TIME_BYTES, 'base64url');
  bytes.writeUInt32BE(index, TIME_BYTES + TAG_BYTES);
  return bytes.toString('base64url');
}

/** The tag of an id benchServeId made (ClickHouse: substring(serve_id, TAG_FROM + 1, TAG_CHARS)). */
export const SERVE_ID_TAG_AT = { from: TAG_FROM, chars: TAG_CHARS };

/** The pixel index of an id benchServeId made. */
export function benchServeIndex(serveId: string): number {
  return Buffer.from(serveId, 'base64url').readUInt32BE(TIME_BYTES + TAG_BYTES);
}
