import { z } from 'zod';
import { isSupportedCurrency, supportedCurrencies } from './usdRates.js';

// The runtime's ICU knows the current ISO 4217 list; no hand-kept copy to go stale.
const iso4217 = new Set(Intl.supportedValuesOf('currency'));

/**
 * A budget currency: an ISO 4217 code (any case in, upper case out) that has a USD rate.
 * A code that is not ISO and an ISO code without a rate are both 422, with different messages.
 */
export const currencyCode = z
  .string()
  .trim()
  .toUpperCase()
  .refine((code) => iso4217.has(code), { message: 'must be an ISO 4217 currency code', abort: true })
  .refine(isSupportedCurrency, {
    message: `unsupported currency; supported: ${supportedCurrencies.join(', ')}`,
  });
