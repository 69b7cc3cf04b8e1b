import { WordScan, wordHash, wordsOf } from '../serving/contextWords.js';
import { FirstWordMap } from '../serving/firstWordMap.js';
import { similarity, type SemanticModel } from './semanticModel.js';
import { BRAND_SAFETY_MIN_SIMILARITY, SENSITIVE_TOPICS, type SensitiveTopic } from './sensitiveTopics.js';
import { TopicBound } from './topicBound.js';

/** Bounds by model and topic descriptions: made once per process (about 80 ms and 7 MB), however many apps a process starts. */
const boundsByModel = new WeakMap<SemanticModel, Map<string, TopicBound>>();

interface TopicPhrase {
  topic: string;
  words: string[];
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
  private readonly topicVectors: { topic: string; vector: Float32Array }[] = [];
  private readonly descriptions: string;
  /** Clears most conversations without embedding them; made on the first one judged. */
  private bound: TopicBound | undefined = undefined;

  constructor(private readonly model: SemanticModel | undefined, topics: SensitiveTopic[] = SENSITIVE_TOPICS, readonly minSimilarity = BRAND_SAFETY_MIN_SIMILARITY) {
    this.descriptions = topics.map((topic) => topic.description).join('\n');
    for (const topic of topics) {
      for (const phrase of topic.phrases) {
        const words = wordsOf(phrase);
        this.phrasesByFirstWord.add(wordHash(words[0]!), { topic: topic.name, words });
      }
      const vector = model?.embedText(topic.description);
      if (vector) this.topicVectors.push({ topic: topic.name, vector });
    }
  }

  /** The topic that vetoes an ad for these scanned texts and this conversation vector, if any. */
  veto(scans: WordScan[], conversation: Float32Array | undefined): BrandSafetyVeto | undefined {
    return this.phraseVeto(scans) ?? this.similarityVeto(conversation);
  }

  /** The topic one of whose phrases these scanned texts contain, if any: cheap, no vector needed. */
  phraseVeto(scans: WordScan[]): BrandSafetyVeto | undefined {
    for (const scan of scans) {
      for (let i = 0; i < scan.count; i++) {
        const candidates = this.phrasesByFirstWord.get(scan.hashes[i]!);
        if (candidates === undefined) continue;
        for (const phrase of candidates) if (phraseAt(scan, i, phrase.words)) return { topic: phrase.topic, by: 'phrase' };
      }
    }
    return undefined;
  }

  /**
   * Whether no topic can veto this query and response by similarity, decided from an exact bound
   * (topicBound.ts) without their vector: when true, similarityVeto of their vector finds none; when
   * false, ask it. Most conversations are cleared: 388 of the 474 the serve-semantic bench sends that
   * no topic vetoes.
   */
  clearsBySimilarity(query: WordScan, response: WordScan): boolean {
    if (this.model === undefined || this.topicVectors.length === 0) return true;
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

  /** The first topic this conversation vector is similar enough to, if any (none without word vectors). */
  similarityVeto(conversation: Float32Array | undefined): BrandSafetyVeto | undefined {
    if (conversation === undefined) return undefined;
    for (const { topic, vector } of this.topicVectors) {
      const score = similarity(conversation, vector);
      if (score >= this.minSimilarity) return { topic, by: 'similarity', similarity: score };
    }
    return undefined;
  }
}

function phraseAt(scan: WordScan, start: number, words: string[]): boolean {
  if (start + words.length > scan.count) return false;
  for (let k = 0; k < words.length; k++) if (!scan.wordIs(start + k, words[k]!)) return false;
  return true;
}
