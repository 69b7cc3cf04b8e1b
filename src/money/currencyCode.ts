import { z } from 'zod';
import { isSupportedCurrency, supportedCurrencies } from './usdRates.js';
import { isNamedCode } from '../intlNames.js';

const NOT_ISO_4217 = 'must be an ISO 4217 currency code';

/**
 * A budget currency: an ISO 4217 code (any case in, upper case out) that has a USD rate.
 * A code that is not ISO and an ISO code without a rate are both 422, with different messages.
 * The letters are checked before the case is changed: JavaScript's upper case of long ſ is S and of
 * dotless ı I, so 'uſd' was taken as USD.
 */
export const currencyCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, { message: NOT_ISO_4217, abort: true })
  .toUpperCase()
  // The runtime's ICU names every ISO 4217 code, no hand-kept copy to go stale: current ones, former
  // ones (DEM) and the X codes for metals and units (XAU, XDR), which Intl.supportedValuesOf leaves out.
  .refine((code) => isNamedCode('currency', code), { message: NOT_ISO_4217, abort: true })
  .refine(isSupportedCurrency, {
    message: `unsupported currency; supported: ${supportedCurrencies.join(', ')}`,
  });
