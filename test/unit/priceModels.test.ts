import { describe, expect, it } from 'vitest';
import { bidInUsd, eligiblePriceModels, PRICE_MODELS, priceNanos, smallestBid } from '../../src/money/priceModels.js';
import { convertToUsd, supportedCurrencies } from '../../src/money/usdRates.js';
import { budgetsInNanos } from '../../src/serving/adIndex.js';

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

describe('smallestBid', () => {
  it('is the smallest 6-decimal bid that prices at 1 nano-USD or more: one micro-unit less prices at 0', () => {
    // tCPM 0.0001 KRW (try37 M2) is 68 nano-USD a thousand: 0 an impression.
    expect(priceNanos('tCPM', convertToUsd(0.0001, 'KRW')!)).toBe(0);
    expect(smallestBid('tCPM', 'KRW', convertToUsd)).toBe(0.000736);
    expect(smallestBid('tCPM', 'JPY', convertToUsd)).toBe(0.000079);
    expect(smallestBid('tCPM', 'USD', convertToUsd)).toBe(0.000001);
    expect(smallestBid('CPC', 'KRW', convertToUsd)).toBe(0.000001);
    expect(smallestBid('CPC', 'XXX', convertToUsd)).toBeUndefined();
    for (const currency of supportedCurrencies) {
      for (const model of PRICE_MODELS) {
        const smallest = smallestBid(model, currency, convertToUsd)!;
        expect(priceNanos(model, convertToUsd(smallest, currency)!), `${model} ${currency}`).toBeGreaterThanOrEqual(1);
        if (smallest > 0.000001) expect(priceNanos(model, convertToUsd(smallest - 0.000001, currency)!), `${model} ${currency}`).toBe(0);
      }
    }
  });
});

describe('budgets in nano-USD', () => {
  it('gives every supported currency\'s smallest amount (0.000001) at least 1 nano-USD: no positive budget converts to 0', () => {
    for (const currency of supportedCurrencies) {
      const budgets = budgetsInNanos({ budget_daily: '0.000001', budget_currency: currency, budget_lifetime: null }, convertToUsd);
      expect(typeof budgets === 'object' && budgets.budgetNanos >= 1, currency).toBe(true);
    }
    // A daily budget of 0.0001 KRW is 68 nano-USD: tiny, but a budget that binds.
    expect(budgetsInNanos({ budget_daily: '0.0001', budget_currency: 'KRW', budget_lifetime: null }, convertToUsd)).toEqual({ budgetNanos: 68, lifetimeBudgetNanos: Infinity });
  });
});
