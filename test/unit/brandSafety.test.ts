import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BrandSafety } from '../../src/semantic/brandSafety.js';
import { SemanticModel } from '../../src/semantic/semanticModel.js';
import { writeWordVectorsIfMissing } from '../../src/semantic/buildWordVectors.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../../src/semantic/wordVectorsFile.js';
import { WordScan } from '../../src/serving/contextWords.js';
import { packageRoot } from '../../src/packageRoot.js';

writeWordVectorsIfMissing();
const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);
const brandSafety = new BrandSafety(model);

/** The verdict a serve gets on this query, with the answer the tester's serves had. */
function verdict(query: string) {
  const [q, r] = [new WordScan(), new WordScan()];
  q.scan(query);
  r.scan('Here is some information.');
  return brandSafety.veto([q, r], model.embedConversation(q, r));
}

/** bench/semantic/brandSafetyCases.txt: `expect | source | query`. */
const cases = readFileSync(path.join(packageRoot, 'bench', 'semantic', 'brandSafetyCases.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => {
    const [expected, source, query] = line.split(' | ');
    return { expected: expected!, source: source!, query: query! };
  });

describe('brand safety: the wordings the hands-on test found (try32 M2)', () => {
  for (const { expected, query } of cases.filter((c) => c.source === 'try32')) {
    it(`${expected === 'veto' ? 'vetoes' : 'serves'}: ${query}`, () => {
      if (expected === 'veto') expect(verdict(query)).toBeDefined();
      else expect(verdict(query)).toBeUndefined();
    });
  }
});

describe('brand safety: phrases', () => {
  it('reads "lost my <relative>" and "RIP <relative>" as a death, not when the relative is a possessive', () => {
    expect(verdict('we lost our grandfather in june, how do we sell his car?')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    expect(verdict('rip my sister. what should I wear to the service?')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    expect(verdict("I lost my brother's charger, which one fits his phone?")).toBeUndefined();
    expect(verdict("how do I rip my dad's vinyl to mp3?")).toBeUndefined();
  });

  it('matches the other languages with or without their accents', () => {
    expect(verdict('mi abuelo fallecio anoche')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    expect(verdict('le décès de ma tante')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    expect(verdict('le deces de ma tante')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
  });
});

describe('brand safety: what the similarity needs besides a close vector', () => {
  it('vetoes by similarity only a conversation with a cue of some sensitive topic', () => {
    // Close to mourning (flowers, a mother) but naming nothing sensitive: 0.52 on main.
    expect(verdict('flowers for mother\'s day')).toBeUndefined();
    // The same neighbourhood with a cue: vetoed by the similarity, as before.
    expect(verdict('my grandmother went peacefully in her sleep on sunday, how do I close her bank account?')).toMatchObject({ by: 'similarity' });
  });

  it('does not veto an accident by similarity when the conversation says nobody was hurt, but a phrase still does', () => {
    expect(verdict('car insurance after a fender bender, nobody hurt')).toBeUndefined();
    expect(verdict('car insurance after a fender bender, two people hurt')).toMatchObject({ topic: 'accident', by: 'similarity' });
    expect(verdict('car insurance after a car accident, nobody hurt')).toMatchObject({ topic: 'accident', by: 'phrase' });
  });
});
