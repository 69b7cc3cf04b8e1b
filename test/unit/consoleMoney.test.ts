import { describe, expect, it } from 'vitest';
import { usd } from '../../web/console/ui.js';

describe('console money: usd', () => {
  it('shows every amount to the cent, one format in every cell', () => {
    expect(usd(6.624)).toBe('$6.62');
    expect(usd(20)).toBe('$20.00');
    expect(usd(0.5)).toBe('$0.50');
    expect(usd(1234.5)).toBe('$1,234.50');
    expect(usd(0)).toBe('$0.00');
  });

  it('never shows $0.00 for an amount above zero that rounds to no cent', () => {
    expect(usd(0.000281)).toBe('under $0.01');
    expect(usd(0.005)).toBe('$0.01');
  });
});
