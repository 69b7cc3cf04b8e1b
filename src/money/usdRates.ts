import { NANOS_PER_USD, usdToNanos } from './nanoUsd.js';

// Reference USD rates for the currencies advertisers may budget and bid in. Spend, pacing and
// reporting are all in USD, so serving prices every budget and bid through convertToUsd.
//
// The rates are static on purpose: a bid must price the same on every instance and after every
// restart, and no exchange-rate feed is reachable offline. They are mid-market reference rates,
// rounded, of 2025-01-02; update the table (and that date) with a code change.

/** USD for one unit of each currency. A Map, so that no inherited key ("constructor") is a rate. */
const usdPerUnit: ReadonlyMap<string, number> = new Map([
  ['USD', 1],
  ['EUR', 1.035],
  ['GBP', 1.245],
  ['CHF', 1.1],
  ['JPY', 0.00637],
  ['CNY', 0.137],
  ['CAD', 0.695],
  ['AUD', 0.621],
  ['NZD', 0.562],
  ['SEK', 0.0906],
  ['NOK', 0.088],
  ['DKK', 0.1388],
  ['PLN', 0.2425],
  ['CZK', 0.0412],
  ['HUF', 0.00252],
  ['SGD', 0.733],
  ['HKD', 0.1287],
  ['INR', 0.01167],
  ['KRW', 0.000679],
  ['BRL', 0.1618],
  ['MXN', 0.0483],
  ['ZAR', 0.0533],
  ['TRY', 0.0283],
  ['ILS', 0.274],
  ['AED', 0.2723],
]);

export const supportedCurrencies: readonly string[] = [...usdPerUnit.keys()].sort();

export function isSupportedCurrency(currency: string): boolean {
  return usdPerUnit.has(currency);
}

/**
 * `amount` of `currency` in USD, to the nano-dollar (the unit events are billed in); undefined for
 * a currency without a rate (stored budgets were validated against this table, so only a rate
 * removed later can cause that, and such a line item must not be priced).
 */
export function convertToUsd(amount: number, currency: string): number | undefined {
  const rate = usdPerUnit.get(currency);
  if (rate === undefined) return undefined;
  return usdToNanos(amount * rate) / NANOS_PER_USD;
}
