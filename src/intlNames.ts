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
