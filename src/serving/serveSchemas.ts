import { z } from 'zod';
import { currentLanguageCode } from '../intlNames.js';
import { placementId } from '../placements/placementSchemas.js';

/** Longest context texts a serve may carry (characters); the body limit leaves room for them in any script. */
const MAX_QUERY_LENGTH = 4000;
const MAX_RESPONSE_LENGTH = 20_000;
/** /v1/serve's own body limit: 20,000 characters of a non-Latin script take up to 60 KB of UTF-8. */
export const SERVE_BODY_LIMIT_BYTES = 128 * 1024;

/**
 * A language as ISO 639-1 ("de"), or a BCP 47 tag whose primary subtag is one ("de-AT"): chat
 * clients usually know a locale. Only the two-letter language is kept, lowercased, as its current
 * code (iw as he), as targeting stores it.
 */
const language = z
  .string()
  .regex(/^[A-Za-z]{2}(-[A-Za-z0-9]{1,8})*$/, 'must be an ISO 639-1 language code such as "en" (a tag such as "en-US" is accepted)')
  .transform((tag) => currentLanguageCode(tag.slice(0, 2).toLowerCase()));

/** Unknown fields are rejected (422), as on every route: a misspelt optional field must not go unnoticed. */
export const serveRequestBody = z.strictObject({
  placement_id: placementId,
  context: z.strictObject({
    query: z.string().max(MAX_QUERY_LENGTH),
    response: z.string().max(MAX_RESPONSE_LENGTH),
  }),
  /** The end user as the publisher's backend saw them. */
  user: z
    .strictObject({
      ip: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' }).optional(),
      user_agent: z.string().max(1024).optional(),
      /** The publisher's pseudonymous id of the user: keyed with the publisher (userKey) before any use, never stored. */
      id: z.string().min(1).max(256).optional(),
    })
    .optional(),
  language: language.optional(),
  /** Adds `match` to the response: why this ad was chosen, or which sensitive topic vetoed every ad. */
  explain: z.boolean().optional(),
});
