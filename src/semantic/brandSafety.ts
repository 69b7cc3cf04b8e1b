import { WordScan, wordHash, wordsOf } from '../serving/contextWords.js';
import { FirstWordMap } from '../serving/firstWordMap.js';
import { similarity, type SemanticModel } from './semanticModel.js';
import { BRAND_SAFETY_MIN_SIMILARITY, NAMED_RELATIVES, RELATIVES, SENSITIVE_TOPICS, type SensitiveTopic } from './sensitiveTopics.js';
import { TopicBound } from './topicBound.js';

/** Bounds by model and topic descriptions: made once per process (about 80 ms and 7 MB), however many apps a process starts. */
const boundsByModel = new WeakMap<SemanticModel, Map<string, TopicBound>>();

interface TopicPhrase {
  topic: string;
  words: string[];
  /** Ends with a person: not when the next word is the "s" of a possessive ("lost my dad's watch"). */
  endsWithPerson: boolean;
}

/** What besides its similarity a topic needs to veto by it (sensitiveTopics.ts). */
interface TopicEvidence {
  topic: string;
  vector: Float32Array;
  clears: FirstWordMap<TopicPhrase>;
}

/** Why a conversation gets no ad. */
export interface BrandSafetyVeto {
  topic: string;
  by: 'phrase' | 'similarity';
  similarity?: number;
}

/** Vetoes ads next to sensitive topics (see sensitiveTopics.ts), by phrase always and by similarity when word vectors are loaded. */
export class BrandSafety {
  private readonly phrasesByFirstWord = new FirstWordMap<TopicPhrase>();
  private readonly topicVectors: TopicEvidence[] = [];
  /**
   * Every topic's cues by wordHash: the similarity often lands on a neighbouring topic (a hospice
   * near bereavement), so any topic's cue will do. Behind the first-word filter: most words of a
   * conversation are no cue, answered from 2 KB that stay in cache.
   */
  private readonly cues = new FirstWordMap<string>();
  private readonly descriptions: string;
  /** Clears most conversations without embedding them; made on the first one judged. */
  private bound: TopicBound | undefined = undefined;

  constructor(private readonly model: SemanticModel | undefined, topics: SensitiveTopic[] = SENSITIVE_TOPICS, readonly minSimilarity = BRAND_SAFETY_MIN_SIMILARITY) {
    this.descriptions = topics.map((topic) => topic.description).join('\n');
    for (const topic of topics) {
      for (const phrase of phrasesOf(topic)) this.phrasesByFirstWord.add(wordHash(phrase.words[0]!), { topic: topic.name, ...phrase });
      const vector = model?.embedText(topic.description);
      if (vector === undefined) continue;
      for (const cue of topic.cues) if (this.cues.get(wordHash(cue))?.includes(cue) !== true) this.cues.add(wordHash(cue), cue);
      const clears = new FirstWordMap<TopicPhrase>();
      for (const phrase of topic.clears) {
        const words = wordsOf(phrase);
        clears.add(wordHash(words[0]!), { topic: topic.name, words, endsWithPerson: false });
      }
      this.topicVectors.push({ topic: topic.name, vector, clears });
    }
  }

  /** The topic that vetoes an ad for these scanned texts and this conversation vector, if any. */
  veto(scans: WordScan[], conversation: Float32Array | undefined): BrandSafetyVeto | undefined {
    return this.phraseVeto(scans) ?? this.similarityVeto(conversation, scans);
  }

  /** The topic one of whose phrases these scanned texts contain, if any: cheap, no vector needed. */
  phraseVeto(scans: WordScan[]): BrandSafetyVeto | undefined {
    const phrase = firstPhrase(this.phrasesByFirstWord, scans);
    return phrase === undefined ? undefined : { topic: phrase.topic, by: 'phrase' };
  }

  /**
   * Whether no topic can veto this query and response by similarity, decided without their vector:
   * when true, similarityVeto of their vector finds none; when false, ask it. A conversation with no
   * topic's cue is never vetoed by similarity (similarityVeto), so it is cleared by a look at each
   * word's filter bit: 81 % of the serve bench's bodies, for which the bound's slot reads were most
   * of brand safety's cost under load (bench/README.md, "Serve: session 33"). The others are judged
   * by an exact bound (topicBound.ts): 388 of the 474 the serve-semantic bench sends that no topic
   * vetoes are cleared by it.
   */
  clearsBySimilarity(query: WordScan, response: WordScan): boolean {
    if (this.model === undefined || this.topicVectors.length === 0) return true;
    if (!hasCue(this.cues, query) && !hasCue(this.cues, response)) return true;
    this.bound ??= this.sharedBound(this.model);
    return this.bound.clears(query, response, this.minSimilarity);
  }

  private sharedBound(model: SemanticModel): TopicBound {
    let bounds = boundsByModel.get(model);
    if (bounds === undefined) boundsByModel.set(model, (bounds = new Map()));
    let bound = bounds.get(this.descriptions);
    if (bound === undefined) bounds.set(this.descriptions, (bound = new TopicBound(model, this.topicVectors.map(({ vector }) => vector))));
    return bound;
  }

  /**
   * The first topic this conversation vector is similar enough to, if any (none without word
   * vectors), when the scanned texts have a cue of any topic, and among the topics they do not clear
   * (sensitiveTopics.ts).
   * Those two only take vetoes away, so the bound, which knows neither, stays exact; clearsBySimilarity
   * relies on the first (no cue, no veto), so a rule that let a conversation without a cue be vetoed
   * here must change it too (semanticMatching.test.ts compares the two).
   */
  similarityVeto(conversation: Float32Array | undefined, scans: WordScan[]): BrandSafetyVeto | undefined {
    if (conversation === undefined) return undefined;
    let cued: boolean | undefined;
    for (const { topic, vector, clears } of this.topicVectors) {
      const score = similarity(conversation, vector);
      if (score < this.minSimilarity) continue;
      cued ??= scans.some((scan) => hasCue(this.cues, scan));
      if (!cued) return undefined;
      if (firstPhrase(clears, scans) === undefined) return { topic, by: 'similarity', similarity: score };
    }
    return undefined;
  }
}

/** A topic's phrases, English and other languages, `{relative}` and `{named relative}` spelled out, each also without its accents. */
function phrasesOf(topic: SensitiveTopic): Array<Omit<TopicPhrase, 'topic'>> {
  /** Each phrase's text, and whether it ends with a person. */
  const phrases = new Map<string, boolean>();
  const add = (text: string, endsWithPerson: boolean) => {
    phrases.set(text, endsWithPerson);
    // People type "fallecio" for "falleció", "deces" for "décès".
    phrases.set(text.normalize('NFD').replace(/\p{M}/gu, ''), endsWithPerson);
  };
  for (const phrase of [...topic.phrases, ...Object.values(topic.otherLanguages).flat()]) {
    const slot = /\{(named )?relative\}/.exec(phrase);
    if (slot === null) add(phrase, false);
    else for (const person of slot[1] === undefined ? RELATIVES : NAMED_RELATIVES) add(phrase.replace(slot[0], person), phrase.endsWith(slot[0]));
  }
  return [...phrases].map(([text, endsWithPerson]) => ({ words: wordsOf(text), endsWithPerson }));
}

/** The first phrase of `phrases` these scanned texts contain, if any. */
function firstPhrase(phrases: FirstWordMap<TopicPhrase>, scans: WordScan[]): TopicPhrase | undefined {
  for (const scan of scans) {
    for (let i = 0; i < scan.count; i++) {
      const candidates = phrases.get(scan.hashes[i]!);
      if (candidates === undefined) continue;
      for (const phrase of candidates) if (phraseAt(scan, i, phrase)) return phrase;
    }
  }
  return undefined;
}

function phraseAt(scan: WordScan, start: number, phrase: TopicPhrase): boolean {
  const { words } = phrase;
  const end = start + words.length;
  if (end > scan.count) return false;
  for (let k = 0; k < words.length; k++) if (!scan.wordIs(start + k, words[k]!)) return false;
  return !(phrase.endsWithPerson && end < scan.count && scan.wordIs(end, 's'));
}

function hasCue(cues: FirstWordMap<string>, scan: WordScan): boolean {
  for (let i = 0; i < scan.count; i++) {
    const candidates = cues.get(scan.hashes[i]!);
    if (candidates === undefined) continue;
    for (const cue of candidates) if (scan.wordIs(i, cue)) return true;
  }
  return false;
}
