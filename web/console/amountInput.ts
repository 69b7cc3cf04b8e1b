import { ApiFailure, type ErrorDetail } from './api.js';

/**
 * A typed money amount as the number the API takes. A decimal point or a decimal comma is
 * accepted (12.5, 12,5); a comma followed by exactly three digits (1,000) is refused as ambiguous
 * (one thousand in English, one in German) rather than guessed, since a wrong guess moves money.
 */
function parseAmount(text: string): { value: number } | { problem: string } {
  const typed = text.trim();
  if (/^\d+(\.\d+)?$/.test(typed)) return { value: Number(typed) };
  const comma = /^(\d+),(\d+)$/.exec(typed);
  if (comma && comma[2]!.length !== 3) return { value: Number(`${comma[1]}.${comma[2]}`) };
  if (comma) return { problem: `is ${typed} ${comma[1]} thousand or ${comma[1]}? Write ${comma[1]}${comma[2]} or ${comma[1]}.${comma[2]}` };
  if (/^-\d/.test(typed)) return { problem: 'must be greater than 0' };
  if (typed === '') return { problem: 'enter an amount, for example 12.5' };
  return { problem: 'enter an amount as digits, for example 12.5 or 12,5 (no thousands separators, no currency sign)' };
}

/**
 * The amounts of a form, each under the API detail path its field shows: the numbers to send, or
 * an ApiFailure with one detail per unreadable amount, shown beside its field like the API's own
 * 422 details, before anything is sent.
 */
export function readAmounts<Path extends string>(typed: Partial<Record<Path, string>>): Partial<Record<Path, number>> {
  const values: Partial<Record<Path, number>> = {};
  const details: ErrorDetail[] = [];
  for (const [path, text] of Object.entries(typed) as [Path, string][]) {
    const parsed = parseAmount(text);
    if ('value' in parsed) values[path] = parsed.value;
    else details.push({ path, message: parsed.problem });
  }
  if (details.length > 0) throw new ApiFailure(0, 'validation_error', 'Some amounts could not be read; nothing was saved.', details);
  return values;
}
