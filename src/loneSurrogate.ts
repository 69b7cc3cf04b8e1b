/**
 * Whether a text holds a lone surrogate: a string JavaScript allows but UTF-8 cannot encode, which
 * JSON spells as `\ud800` and ClickHouse refuses to read. In a u-flag pattern a surrogate pair reads
 * as one code point, so \p{Cs} matches only an unpaired half.
 */
export function holdsLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

const LONE_SURROGATE = /\p{Cs}/u;
