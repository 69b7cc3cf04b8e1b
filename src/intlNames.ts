const made = new Map<Intl.DisplayNamesType, Intl.DisplayNames>();

/**
 * Whether the runtime's ICU names `code` as a `type` (an ISO currency, language or region code).
 * The names are made on first use, not when a schema's module loads: the first Intl.DisplayNames
 * of a process loads ICU's data, 11-12 ms that every start paid before it could serve, though only
 * a management write asks.
 */
export function isNamedCode(type: Intl.DisplayNamesType, code: string): boolean {
  let names = made.get(type);
  if (!names) made.set(type, (names = new Intl.DisplayNames(['en'], { type, fallback: 'none' })));
  return names.of(code) !== undefined;
}

/**
 * ISO 639 codes withdrawn in favour of others, which older clients still send: java.util.Locale
 * answered iw, in and ji for Hebrew, Indonesian and Yiddish before JDK 17. Both are valid ISO 639-1
 * input, so targeting and serving each store the current code, and `he` matches `iw` either way.
 */
const replacedLanguageCodes = new Map([
  ['iw', 'he'],
  ['in', 'id'],
  ['ji', 'yi'],
  ['jw', 'jv'],
  ['mo', 'ro'],
]);

/** A lower-case two-letter language code as its current ISO 639-1 code (iw -> he); any other is itself. */
export function currentLanguageCode(code: string): string {
  return replacedLanguageCodes.get(code) ?? code;
}
