import { z } from 'zod';
import { isSupportedCurrency, supportedCurrencies } from './usdRates.js';
import { isNamedCode } from '../intlNames.js';

// The runtime's ICU names every ISO 4217 code, no hand-kept copy to go stale: current ones, former
// ones (DEM) and the X codes for metals and units (XAU, XDR), which Intl.supportedValuesOf leaves out.
const isIso4217 = (code: string) => /^[A-Z]{3}$/.test(code) && isNamedCode('currency', code);

/**
 * A budget currency: an ISO 4217 code (any case in, upper case out) that has a USD rate.
 * A code that is not ISO and an ISO code without a rate are both 422, with different messages.
 */
export const currencyCode = z
  .string()
  .trim()
  .toUpperCase()
  .refine(isIso4217, { message: 'must be an ISO 4217 currency code', abort: true })
  .refine(isSupportedCurrency, {
    message: `unsupported currency; supported: ${supportedCurrencies.join(', ')}`,
  });
