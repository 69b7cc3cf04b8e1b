import { describe, expect, it } from 'vitest';
import { performanceMetrics, roundedQuotient, ZERO_SUMS } from '../../src/reporting/performanceMetrics.js';
import { ZERO_METRICS } from '../helpers/reportingFixtures.js';

describe('roundedQuotient', () => {
  it('rounds the exact quotient once to 6 decimals, half away from zero', () => {
    expect(roundedQuotient(1n, 3n)).toBe(0.333333);
    expect(roundedQuotient(2n, 3n)).toBe(0.666667);
    expect(roundedQuotient(1n, 2_000_000n)).toBe(0.000001);
    expect(roundedQuotient(-1n, 2_000_000n)).toBe(-0.000001);
    expect(roundedQuotient(1n, 2_000_001n)).toBe(0);
  });

  it('is 0 when the denominator is 0', () => {
    expect(roundedQuotient(5n, 0n)).toBe(0);
    expect(roundedQuotient(0n, 0n)).toBe(0);
  });

  it('rounds halves that binary floating point would get wrong', () => {
    // 1.0000005 is 1.000000499999... as a double: Math.round(x * 1e6) / 1e6 would give 1.
    expect(roundedQuotient(1_000_000_500n, 1_000_000_000n)).toBe(1.000001);
  });
});

describe('performanceMetrics', () => {
  it('recomputes every rate from the sums by the spec formulas', () => {
    const metrics = performanceMetrics({
      impressions: 7,
      clicks: 3,
      conversions: 2,
      spendNanos: 17_500_000n, // 7 impressions at a $2.50 tCPM
      revenueNanos: 99_990_000_000n,
    });
    expect(metrics).toEqual({
      impressions: 7,
      clicks: 3,
      conversions: 2,
      spend_usd: 0.0175,
      revenue_usd: 99.99,
      ctr: 42.857143, // 3 / 7 x 100
      cpc_usd: 0.005833, // 0.0175 / 3
      cpa_usd: 0.00875, // 0.0175 / 2
      cvr: 66.666667, // 2 / 3 x 100
      ecpm_usd: 2.5, // 0.0175 / 7 x 1000
      roas: 5713.714286, // 99.99 / 0.0175
    });
  });

  it('answers 0.0 for every rate whose denominator is 0', () => {
    expect(performanceMetrics(ZERO_SUMS)).toEqual(ZERO_METRICS);
    const revenueWithoutSpend = performanceMetrics({ ...ZERO_SUMS, conversions: 1, revenueNanos: 5_000_000_000n });
    expect(revenueWithoutSpend).toMatchObject({ roas: 0, cpa_usd: 0, cvr: 0, revenue_usd: 5 });
  });

  it('computes from nano sums beyond 2^53 (about $9M) without losing them to floating point', () => {
    // As a double, 9_007_199_254_743_499 becomes ..._500, a half that would round up to ...254744.
    const metrics = performanceMetrics({ ...ZERO_SUMS, impressions: 1000, spendNanos: 9_007_199_254_743_499n });
    expect(metrics.spend_usd).toBe(9_007_199.254743);
    expect(metrics.ecpm_usd).toBe(9_007_199.254743);
  });
});
