import { describe, expect, it } from 'vitest';
import { bidInUsd, eligiblePriceModels, priceNanos } from '../../src/money/priceModels.js';
import { convertToUsd } from '../../src/money/usdRates.js';

describe('eligiblePriceModels', () => {
  it('gives uncertified and revoked placements CPC and CPA demand only, certified ones tCPM too', () => {
    expect(eligiblePriceModels('uncertified')).toEqual(['CPC', 'CPA']);
    expect(eligiblePriceModels('revoked')).toEqual(['CPC', 'CPA']);
    expect(eligiblePriceModels('certified')).toEqual(['tCPM', 'CPC', 'CPA']);
  });
});

describe('bidInUsd', () => {
  it("converts the bid from the budget's currency, USD when no budget is set", () => {
    expect(bidInUsd({ bid_type: 'CPC', bid_value: '2', budget_currency: 'eur' }, convertToUsd)).toEqual({ model: 'CPC', bidUsd: convertToUsd(2, 'EUR') });
    expect(bidInUsd({ bid_type: 'tCPM', bid_value: '2.5', budget_currency: null }, convertToUsd)).toEqual({ model: 'tCPM', bidUsd: 2.5 });
  });

  it('has no bid without a known price model or a value, and no price in a currency without a rate', () => {
    expect(bidInUsd({ bid_type: null, bid_value: '1', budget_currency: 'USD' }, convertToUsd)).toBe('no_bid');
    expect(bidInUsd({ bid_type: 'CPV', bid_value: '1', budget_currency: 'USD' }, convertToUsd)).toBe('no_bid');
    expect(bidInUsd({ bid_type: 'CPC', bid_value: null, budget_currency: 'USD' }, convertToUsd)).toBe('no_bid');
    expect(bidInUsd({ bid_type: 'CPC', bid_value: '1', budget_currency: 'XXX' }, convertToUsd)).toBe('unknown_currency');
  });
});

describe('priceNanos', () => {
  it('charges tCPM per impression (bid/1000) and CPC and CPA per event, in nano-USD', () => {
    expect(priceNanos('tCPM', 2.5)).toBe(2_500_000);
    expect(priceNanos('CPC', 0.4)).toBe(400_000_000);
    expect(priceNanos('CPA', 12)).toBe(12_000_000_000);
  });
});
