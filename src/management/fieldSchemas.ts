import { z } from 'zod';
import { holdsLoneSurrogate } from '../loneSurrogate.js';

// Postgres text cannot hold NUL and control characters break rendering: refuse them up front (422),
// rather than letting the database answer 500. Every free-text field written to Postgres (admin,
// publisher and management bodies) is a textLine or a textBlock, so this is the one home of the rule.
const controlCharacters = /[\p{Cc}]/u;
const controlCharactersExceptNewline = /[^\P{Cc}\n]/u;

/**
 * Text that is well-formed Unicode. JSON can spell a lone UTF-16 surrogate ("\ud800"), which has no
 * UTF-8 form: Postgres jsonb and ClickHouse refuse it (a 500, or an event quarantined after a 2xx)
 * and text columns store U+FFFD instead of what was sent. Every free text a body carries (names,
 * creatives, keywords, conversion ids, imported user agents) starts from this, so the refusal is a
 * 422 validation_error that changes nothing.
 */
export function wellFormedText() {
  return z.string().refine((text) => !holdsLoneSurrogate(text), { message: 'must be well-formed Unicode (no lone surrogates)', abort: true });
}

/** A trimmed, non-empty line of text of at most `max` characters. */
export function textLine(max: number) {
  return wellFormedText()
    .trim()
    .min(1)
    .max(max)
    .refine((text) => !controlCharacters.test(text), 'must not contain control characters');
}

/** Like textLine, but line breaks are allowed (creative body copy). */
export function textBlock(max: number) {
  return wellFormedText()
    .trim()
    .min(1)
    .max(max)
    .refine((text) => !controlCharactersExceptNewline.test(text), 'must not contain control characters');
}

/**
 * A money amount in the budget's currency: positive, at most 6 decimals (the column is
 * numeric(18, 6), and a silently rounded bid would price differently from what was sent).
 */
export const moneyAmount = z
  .number()
  .positive()
  .max(1_000_000_000)
  .refine((amount) => Number(amount.toFixed(6)) === amount, 'must have at most 6 decimal places');

/**
 * An http(s) link of at most 2048 characters; no javascript:, data: or other schemes. Well-formed
 * Unicode first: z.url takes a lone surrogate, which Postgres would store as U+FFFD, another link.
 */
export const webUrl = wellFormedText().pipe(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048));

export const idParam = z.object({ id: z.uuid() });

/**
 * An RFC 3339 timestamp with its offset ("2026-12-01T00:00:00Z", "2026-12-01T09:00:00+09:00"), as
 * the text it names with T and Z in upper case. RFC 3339 (5.6, NOTE) lets them be written t and z,
 * and JSON Schema's date-time takes them, but zod's check does not: a client that checked its input
 * against openapi.yaml would be refused. `error` answers any other text, and a value that is no string.
 */
export function rfc3339Timestamp(error?: string) {
  return z
    .string({ error })
    .transform((text) => text.replace(/[tz]/g, (letter) => letter.toUpperCase()))
    .pipe(z.iso.datetime({ offset: true, error }));
}
