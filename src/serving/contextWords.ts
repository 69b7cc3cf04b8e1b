const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The lowercased words of a text: runs of letters and digits in any script. Keywords and the serve
 * context are split the same way, so the keyword "e-bike" matches "E-Bike", "e bike" and "e-bikes"
 * does not (whole words only).
 */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}
