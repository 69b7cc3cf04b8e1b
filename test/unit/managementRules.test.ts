import { describe, expect, it } from 'vitest';
import { convertToUsd, isSupportedCurrency, supportedCurrencies } from '../../src/money/usdRates.js';
import { priceNanos } from '../../src/money/priceModels.js';
import { BID_VALUE_MAX } from '../../src/management/lineItemSchemas.js';
import { currencyCode } from '../../src/money/currencyCode.js';
import { moneyAmount } from '../../src/management/fieldSchemas.js';
import { activationGaps, campaignStatusAliases, campaignTransitionError, lineItemTransitionError } from '../../src/management/statusTransitions.js';
import { targetingSchema } from '../../src/management/targetingSchema.js';
import { bidTypeAliases, normalizedTerm, objectiveAliases, primaryKpiAliases } from '../../src/management/valueNormalization.js';

describe('value normalization table', () => {
  it.each([
    [objectiveAliases, 'brand_awareness', 'awareness'],
    [objectiveAliases, ' Awareness ', 'awareness'],
    [primaryKpiAliases, 'impressions', 'CPM'],
    [primaryKpiAliases, 'clicks', 'CPC'],
    [primaryKpiAliases, 'conversions', 'CPA'],
    [bidTypeAliases, 'cpc', 'CPC'],
    [bidTypeAliases, 'cpm', 'tCPM'],
    [bidTypeAliases, 'TCPM', 'tCPM'],
    [bidTypeAliases, 'cpa', 'CPA'],
    [campaignStatusAliases, 'draft', 'paused'],
  ] as const)('maps %#: %s to %s', (aliases, sent, stored) => {
    expect(normalizedTerm(aliases).parse(sent)).toBe(stored);
  });

  it('refuses anything outside the table, naming the accepted terms', () => {
    const result = normalizedTerm(bidTypeAliases).safeParse('vcpm');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('"cpc"');
  });

  // try44 F4: JavaScript's lower case of the Kelvin sign K is k, so 'clic\u212As' was taken as clicks (CPC).
  it('refuses a term whose letters only become one in another case', () => {
    const result = normalizedTerm(primaryKpiAliases).safeParse('clic\u212As');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('"clicks"');
    expect(normalizedTerm(primaryKpiAliases).parse(' CLICKS ')).toBe('CPC');
  });
});

describe('money amounts', () => {
  it.each([0.000001, 1, 12.345678, 999_999_999.5])('accepts %s', (amount) => {
    expect(moneyAmount.parse(amount)).toBe(amount);
  });

  it.each([0, -1, 0.0000001, 1.2345678, 1_000_000_001, Number.NaN])('refuses %s', (amount) => {
    expect(moneyAmount.safeParse(amount).success).toBe(false);
  });
});

describe('currency codes', () => {
  it('upper-cases ISO 4217 codes that have a rate', () => {
    expect(currencyCode.parse(' eur ')).toBe('EUR');
  });

  it('refuses codes that are not ISO 4217, and ISO codes without a rate, with different messages', () => {
    expect(currencyCode.safeParse('XYZ').error?.issues.map((issue) => issue.message)).toEqual(['must be an ISO 4217 currency code']);
    for (const iso of ['XAU', 'XDR', 'DEM']) expect(currencyCode.safeParse(iso).error?.issues.map((issue) => issue.message)).toEqual([expect.stringMatching(/^unsupported currency; supported: /)]);
    for (const notIso of ['', 'EU', 'EURO', 'E1R']) expect(currencyCode.safeParse(notIso).error?.issues.map((issue) => issue.message)).toEqual(['must be an ISO 4217 currency code']);
    expect(currencyCode.safeParse('UYU').error?.issues[0]?.message).toMatch(/^unsupported currency/);
  });

  // JavaScript's upper case of a few other letters is ASCII (dotless ı is I, long ſ is S): 'uſd' was
  // taken as USD. Only the code's own letters, in either case, are a code.
  it('refuses letters that only become a code in upper case', () => {
    for (const notAscii of ['u\u017fd', '\u0131nr']) expect(currencyCode.safeParse(notAscii).error?.issues.map((issue) => issue.message)).toEqual(['must be an ISO 4217 currency code']);
  });

  it('has an ISO 4217 code for every rate', () => {
    const iso = new Set(Intl.supportedValuesOf('currency'));
    expect(supportedCurrencies.filter((code) => !iso.has(code))).toEqual([]);
  });
});

describe('the bid_value cap', () => {
  it('keeps every supported currency\'s largest bid priceable: below 2^53 nano-USD per event', () => {
    for (const currency of supportedCurrencies) {
      expect(Number.isSafeInteger(priceNanos('CPA', convertToUsd(BID_VALUE_MAX, currency)!)), currency).toBe(true);
    }
  });
});

describe('convertToUsd', () => {
  it('converts with the reference rate, to the nano-dollar', () => {
    expect(convertToUsd(10, 'USD')).toBe(10);
    expect(convertToUsd(100, 'EUR')).toBeCloseTo(103.5, 9);
    expect(convertToUsd(1000, 'JPY')).toBeCloseTo(6.37, 9);
    expect(convertToUsd(0.000001, 'KRW')).toBe(1e-9);
  });

  it('answers undefined for a currency without a rate, inherited object keys included', () => {
    expect(convertToUsd(1, 'UYU')).toBeUndefined();
    expect(convertToUsd(1, 'constructor')).toBeUndefined();
    expect(isSupportedCurrency('__proto__')).toBe(false);
  });
});

describe('targeting', () => {
  it('normalizes keywords (lower case, trimmed, one space, deduplicated) and keeps placement ids as sent', () => {
    expect(
      targetingSchema.parse({
        keywords: { include: ['  Gaming\tLaptop ', 'gaming laptop', 'GPU'] },
        placements: { exclude: ['Chat-1', 'Chat-1', 'chat-1'] },
        languages: ['EN', 'en'],
      }),
    ).toEqual({
      keywords: { include: ['gaming laptop', 'gpu'] },
      placements: { exclude: ['Chat-1', 'chat-1'] },
      languages: ['en'],
    });
  });

  // JavaScript's upper case of ß is SS (South Sudan), of the ligature ﬁ FI (Finland), of dotless ı I
  // and of long ſ S, and the lower case of the Kelvin sign K is k: each was stored as another
  // country or language than the one meant, 200. Only ASCII letters, in either case, are a code.
  it('refuses country and language codes whose letters only become one in another case', () => {
    for (const country of ['\u00df', '\ufb01', '\u0131t', '\u017fe']) {
      expect(targetingSchema.safeParse({ countries: { include: [country] } }).error?.issues.map((issue) => issue.message), country).toEqual([
        'must be an ISO 3166-1 alpha-2 country code (two letters)',
      ]);
    }
    expect(targetingSchema.safeParse({ languages: ['\u212Ao'] }).error?.issues.map((issue) => issue.message)).toEqual(['must be an ISO 639-1 language code (two letters)']);
    expect(targetingSchema.parse({ countries: { include: [' an', 'Gb'] }, languages: [' KO '] })).toEqual({ countries: { include: ['AN', 'GB'] }, languages: ['ko'] });
  });

  it('accepts the empty object (no targeting)', () => {
    expect(targetingSchema.parse({})).toEqual({});
  });
});

describe('status transitions', () => {
  it.each([
    ['paused', 'active'],
    ['active', 'paused'],
    ['paused', 'completed'],
    ['active', 'completed'],
    ['completed', 'completed'],
    ['paused', 'paused'],
  ] as const)('lets a campaign go from %s to %s', (from, to) => {
    expect(campaignTransitionError(from, to)).toBeUndefined();
  });

  it.each([
    ['completed', 'active'],
    ['completed', 'paused'],
  ] as const)('keeps a campaign in completed (%s -> %s)', (from, to) => {
    expect(campaignTransitionError(from, to)).toBe('a completed campaign is final');
  });

  it.each([
    ['draft', 'active'],
    ['draft', 'paused'],
    ['draft', 'completed'],
    ['active', 'paused'],
    ['paused', 'active'],
    ['active', 'completed'],
  ] as const)('lets a line item go from %s to %s', (from, to) => {
    expect(lineItemTransitionError(from, to)).toBeUndefined();
  });

  it.each([
    ['active', 'draft'],
    ['paused', 'draft'],
    ['completed', 'active'],
    ['completed', 'draft'],
  ] as const)('refuses a line item going from %s to %s', (from, to) => {
    expect(lineItemTransitionError(from, to)).toEqual(expect.any(String));
  });

  it('names what a line item lacks to become active', () => {
    expect(activationGaps({ budget: null, bids: null })).toEqual(['budget', 'bids']);
    expect(activationGaps({ budget: { daily: 1, currency: 'USD' }, bids: null })).toEqual(['bids']);
    expect(activationGaps({ budget: {}, bids: {} })).toEqual([]);
  });
});
