/** ASCII letters and digits, by char code: the common case, answered without a regular expression. */
const ASCII_WORD_CHARACTER = new Uint8Array(128);
for (const [from, to] of [
  [48, 57],
  [65, 90],
  [97, 122],
]) {
  for (let code = from!; code <= to!; code++) ASCII_WORD_CHARACTER[code] = 1;
}

/** Letters (with their combining marks) and digits of any script. */
const UNICODE_WORD_CHARACTER = /^[\p{L}\p{M}\p{N}]$/u;
const nonAsciiVerdicts = new Map<number, boolean>();

function isWordCharacter(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 128) return ASCII_WORD_CHARACTER[code] === 1;
  if (code >= 0xd800 && code <= 0xdfff) return isWordCodePoint(text, code <= 0xdbff ? at : at - 1);
  let verdict = nonAsciiVerdicts.get(code);
  if (verdict === undefined) {
    verdict = UNICODE_WORD_CHARACTER.test(text[at]!);
    nonAsciiVerdicts.set(code, verdict);
  }
  return verdict;
}

/** A character outside the Basic Multilingual Plane (two code units): emoji are not words, rare scripts' letters are. */
function isWordCodePoint(text: string, at: number): boolean {
  const codePoint = at >= 0 ? text.codePointAt(at)! : 0;
  if (codePoint <= 0xffff) return false;
  let verdict = nonAsciiVerdicts.get(codePoint);
  if (verdict === undefined) {
    verdict = UNICODE_WORD_CHARACTER.test(String.fromCodePoint(codePoint));
    nonAsciiVerdicts.set(codePoint, verdict);
  }
  return verdict;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units of a lowercased word: the key keywords are looked up by. */
export function wordHash(word: string): number {
  let hash = FNV_OFFSET;
  for (let at = 0; at < word.length; at++) hash = Math.imul(hash ^ word.charCodeAt(at), FNV_PRIME);
  return hash;
}

/**
 * The lowercased words of a text: runs of letters and digits in any script. Keywords and the serve
 * context are split the same way, so the keyword "e-bike" matches "E-Bike" and "e bike", and
 * "e-bikes" does not (whole words only).
 */
export function wordsOf(text: string): string[] {
  const scanned = keywordScan;
  scanned.scan(text);
  const words: string[] = [];
  for (let i = 0; i < scanned.count; i++) words.push(scanned.text.slice(scanned.starts[i], scanned.ends[i]));
  return words;
}

/**
 * The words of a serve's context, as positions and hashes in reusable buffers: a context holds up to
 * 24,000 characters, and most of its words match no keyword, so none of them is copied into a string
 * of its own. One instance serves every request (requests are handled one at a time).
 */
export class WordScan {
  text = '';
  count = 0;
  starts = new Int32Array(256);
  ends = new Int32Array(256);
  hashes = new Int32Array(256);

  scan(text: string): void {
    const lower = text.toLowerCase();
    this.text = lower;
    this.count = 0;
    let start = -1;
    let hash = FNV_OFFSET;
    const length = lower.length;
    for (let at = 0; at < length; at++) {
      // Each character read once, ASCII answered here: the scan is a tenth of a serve's own CPU.
      const code = lower.charCodeAt(at);
      if (code < 128 ? ASCII_WORD_CHARACTER[code] === 1 : isWordCharacter(lower, at)) {
        if (start < 0) {
          start = at;
          hash = FNV_OFFSET;
        }
        hash = Math.imul(hash ^ code, FNV_PRIME);
      } else if (start >= 0) {
        this.push(start, at, hash);
        start = -1;
      }
    }
    if (start >= 0) this.push(start, length, hash);
  }

  /** Whether word `index` is exactly `word` (after its hash matched). */
  wordIs(index: number, word: string): boolean {
    const start = this.starts[index]!;
    return this.ends[index]! - start === word.length && this.text.startsWith(word, start);
  }

  private push(start: number, end: number, hash: number): void {
    if (this.count === this.starts.length) this.grow();
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.hashes[this.count] = hash;
    this.count += 1;
  }

  private grow(): void {
    const size = this.starts.length * 2;
    const grown = (from: Int32Array) => {
      const to = new Int32Array(size);
      to.set(from);
      return to;
    };
    this.starts = grown(this.starts);
    this.ends = grown(this.ends);
    this.hashes = grown(this.hashes);
  }
}

/**
 * The scanner wordsOf reuses (it runs synchronously and keeps nothing): a fresh one per call would
 * allocate three typed arrays per keyword, most of the time of building an index of 100,000 line items.
 */
const keywordScan = new WordScan();
