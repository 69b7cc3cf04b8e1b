import { FieldProblems, type ErrorDetail } from './fieldProblems.js';

/**
 * A typed money amount as the number the API takes. A decimal point or a decimal comma is
 * accepted (12.5, 12,5, 0.125); a point or comma followed by exactly three digits after a non-zero
 * whole part (1.000, 12.500, 1,000) is refused as ambiguous (a thousands separator to some, a
 * decimal mark to others) rather than guessed, since a wrong guess moves money.
 */
function parseAmount(text: string): { value: number } | { problem: string } {
  const typed = text.trim();
  const decimal = /^(\d+)(?:[.,](\d+))?$/.exec(typed);
  if (decimal) {
    const whole = decimal[1]!;
    const fraction = decimal[2];
    if (fraction?.length === 3 && Number(whole) > 0) {
      // Both readings written so that the hint is itself unambiguous: no separator for the
      // thousands, and a decimal that keeps three digits (2.125) gets a fourth (2.1250).
      const thousands = String(Number(`${whole}${fraction}`));
      const shortest = String(Number(`${whole}.${fraction}`));
      const decimalMark = /\.\d{3}$/.test(shortest) ? `${shortest}0` : shortest;
      return { problem: `${typed} could mean ${thousands} or ${decimalMark}: type ${thousands} or ${decimalMark}` };
    }
    return { value: Number(fraction === undefined ? whole : `${whole}.${fraction}`) };
  }
  if (/^-\d/.test(typed)) return { problem: 'must be greater than 0' };
  if (typed === '') return { problem: 'enter an amount, for example 12.5' };
  return { problem: 'enter an amount as digits, for example 12.5 or 12,5 (no thousands separators, no currency sign)' };
}

/**
 * The amounts of a form, each under the API detail path its field shows: the numbers to send, or
 * FieldProblems with one detail per unreadable amount, shown beside its field like the API's own
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
  if (details.length > 0) throw new FieldProblems('Some amounts could not be read; nothing was saved.', details);
  return values;
}
