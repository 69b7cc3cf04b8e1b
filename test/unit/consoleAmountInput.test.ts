import { describe, expect, it } from 'vitest';
import { readAmounts } from '../../web/console/amountInput.js';
import { ApiFailure } from '../../web/console/api.js';
import { FieldProblems } from '../../web/console/fieldProblems.js';

function problemOf(typed: string): string | undefined {
  try {
    readAmounts({ amount: typed });
    return undefined;
  } catch (failure) {
    // Found here, before anything is sent: a form's problem, not an API answer that never came.
    expect(failure).toBeInstanceOf(FieldProblems);
    expect(failure).not.toBeInstanceOf(ApiFailure);
    return (failure as FieldProblems).detailAt('amount');
  }
}

describe('console amounts', () => {
  it('reads a decimal point or a decimal comma', () => {
    expect(readAmounts({ a: '0.125', b: '12.5', c: '12,5', d: '0,75', e: '7', f: '0,125', g: '1.0000' })).toEqual({
      a: 0.125,
      b: 12.5,
      c: 12.5,
      d: 0.75,
      e: 7,
      f: 0.125,
      g: 1,
    });
  });

  it('refuses a point or comma followed by three digits after a non-zero whole part, with an unambiguous hint', () => {
    expect(problemOf('1.000')).toBe('1.000 could mean 1000 or 1: type 1000 or 1');
    expect(problemOf('1,000')).toBe('1,000 could mean 1000 or 1: type 1000 or 1');
    expect(problemOf('12.500')).toBe('12.500 could mean 12500 or 12.5: type 12500 or 12.5');
    expect(problemOf('2,125')).toBe('2,125 could mean 2125 or 2.1250: type 2125 or 2.1250');
    // Every amount a hint suggests is itself read without a question.
    for (const typed of ['1.000', '12.500', '1,000', '2,125', '30.050']) {
      const suggested = /type (\S+) or (\S+)$/.exec(problemOf(typed)!)!.slice(1);
      for (const amount of suggested) expect(problemOf(amount), `${typed} suggests ${amount}`).toBeUndefined();
    }
  });

  it('refuses negative, empty and separated amounts', () => {
    expect(problemOf('-3')).toBe('must be greater than 0');
    expect(problemOf(' ')).toBe('enter an amount, for example 12.5');
    expect(problemOf('1.000,50')).toMatch(/^enter an amount as digits/);
  });
});
