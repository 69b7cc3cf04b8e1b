import { z } from 'zod';
import { placementId } from '../placements/placementSchemas.js';
import { daypartsSchema } from './daypartSchema.js';
import { wellFormedText } from './fieldSchemas.js';
import { currentLanguageCode, isNamedCode } from '../intlNames.js';
import { notACountryCode } from '../geo/countryCodes.js';

/**
 * A keyword or phrase, stored the way serving matches it: lower case, trimmed, inner whitespace
 * collapsed to one space. Matching against context.query and context.response is case-insensitive.
 */
const keyword = wellFormedText()
  .trim()
  .toLowerCase()
  .overwrite((text) => text.replace(/\s+/g, ' '))
  .min(1)
  .max(100)
  .refine((text) => !/\p{Cc}/u.test(text), 'must not contain control characters');

/**
 * An ISO 639-1 code, lower case (en, de, ja); a withdrawn one is stored as its current code (iw as he).
 * The letters are checked before the case is changed: JavaScript's lower case of the Kelvin sign K is
 * k, so '\u212Ao' was stored as Korean.
 */
const languageCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, { message: 'must be an ISO 639-1 language code (two letters)', abort: true })
  .toLowerCase()
  .refine((code) => isNamedCode('language', code), 'is not an ISO 639-1 language code')
  .transform(currentLanguageCode);

/**
 * An ISO 3166-1 alpha-2 country code, stored upper case (US, DE). The letters are checked before the
 * case is changed: JavaScript's upper case of ß is SS, of the ligature ﬁ FI, of dotless ı I, so 'ß'
 * targeted South Sudan and 'ﬁ' Finland.
 */
const countryCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166-1 alpha-2 country code (two letters)', abort: true })
  .toUpperCase()
  .superRefine((code, context) => {
    const problem = notACountryCode(code);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

function uniqueList<Item extends z.ZodType<string>>(item: Item, max: number) {
  return z
    .array(item)
    .max(max)
    .transform((list) => [...new Set(list)]);
}

function includeExclude<Item extends z.ZodType<string>>(item: Item) {
  return z.strictObject({ include: uniqueList(item, 500).optional(), exclude: uniqueList(item, 500).optional() });
}

/**
 * What a line item may be served next to. A missing or empty include list means everything;
 * exclude always wins; missing languages means any language. PUT targeting replaces the whole
 * object, and `{}` means no targeting at all. Serving reads exactly this shape from
 * line_items.targeting.
 */
export const targetingSchema = z.strictObject({
  keywords: includeExclude(keyword).optional(),
  placements: includeExclude(placementId).optional(),
  languages: uniqueList(languageCode, 200).optional(),
  semantic: z
    .strictObject({
      enabled: z.boolean(),
      /** Cosine similarity (0-1) the conversation must reach; absent means the service default (DEFAULT_MIN_SIMILARITY). */
      min_similarity: z.number().min(0).max(1).optional(),
    })
    .optional(),
  /** Matched against the country of the serve request's user.ip; an unknown country matches no include list. */
  countries: includeExclude(countryCode).optional(),
  /** Local-time windows the line item serves in; missing means any time. */
  dayparts: daypartsSchema.optional(),
});

export type Targeting = z.output<typeof targetingSchema>;
