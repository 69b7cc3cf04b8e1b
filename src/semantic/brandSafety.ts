import { WordScan, wordHash, wordsOf } from '../serving/contextWords.js';
import { FirstWordMap } from '../serving/firstWordMap.js';
import { similarity, type SemanticModel } from './semanticModel.js';
import {
  ANYONE_ELSE, BRAND_SAFETY_MIN_SIMILARITY, CALLING, CONFIRMED_WITH, CUE_NOT_JUST_AFTER, CUE_UNLESS, EVERYDAY_BEFORE, EVERYDAY_JUST_BEFORE, EVERYDAY_NEAR, EVERYDAY_NEXT, EVERYDAY_WITH, FILLERS, FIRST, HABIT, HAVING, NAMED_RELATIVES, NEARLY, OTHER_PERSONS, PERSONAL, PET_ANIMALS, PETS, PLACES,
  RELATIVES, SENSITIVE_TOPICS, SOMEONE, SPANS, SPEAKER, STARTING, STRUCTURES, TAKING, THEMED, type SensitiveTopic,
} from './sensitiveTopics.js';
import { TopicBound } from './topicBound.js';

/** Bounds by model and topic descriptions: made once per process (about 80 ms and 7 MB), however many apps a process starts. */
const boundsByModel = new WeakMap<SemanticModel, Map<string, TopicBound>>();

/** Words by wordHash (the hash finds them, the text confirms). */
type WordSet = Map<number, string>;
/** Runs of words by their first word's hash: "at the shops". */
type WordRuns = Map<number, string[][]>;

interface TopicPhrase {
  topic: string;
  words: string[];
  /** Ends with a person: not when the next words are the "s" of a possessive ("lost my dad's watch") or "in law" (the in-law's phrase judges). */
  endsWithPerson: boolean;
  /** Follows a person or pet (`{someone}` and its kind, sensitiveTopics.ts): the words that may name them. */
  after: WordSet | undefined;
  /** Not when one of the few words before is one of these (`{not after NAME}`): "sunscreen against skin cancer". */
  notAfter: WordSet | undefined;
  /** Not when the words just before are one of these runs (`{not just after NAME}`): "that interview was a car crash", "works in palliative care". */
  notJustAfter: string[][] | undefined;
  /** Not when the next words are one of these (`{unless NAME}`): "passed the test", "lost my mum at the shops". */
  unless: WordRuns | undefined;
  /** An ambiguous phrase (or one with `{if NAME}`): only with one of these words or runs of words in the conversation ("water came"). */
  confirmedBy: WordRuns | undefined;
  /** Not with one of these words or runs of words anywhere in the conversation (`{not with NAME}`): "cancer" said of a star sign paired with a scorpio, a hurricane "we were fine". */
  refutedBy: WordRuns | undefined;
  /** Not with one of these runs about the phrase (`{not near NAME}`, refutedNear): "the film's plot, where the hero has cancer", not "my mum has cancer, we watched the film". */
  refutedNear: WordRuns | undefined;
}

const wordSet = (words: string[]): WordSet => new Map(words.map((word) => [wordHash(word), word]));
function wordRuns(runs: string[]): WordRuns {
  const byFirst: WordRuns = new Map();
  for (const run of runs) {
    const words = wordsOf(run);
    const hash = wordHash(words[0]!);
    byFirst.set(hash, [...(byFirst.get(hash) ?? []), words]);
  }
  return byFirst;
}
const FILLER_WORDS = wordSet(FILLERS);
const PERSONAL_WORDS = wordSet(PERSONAL);
const NAMED_RELATIVE_WORDS = wordSet(NAMED_RELATIVES);
/** `{not near NAME}`: at most this many words between the run and the phrase ("the film's plot, where the hero has cancer": 6). */
const NEAR_WINDOW = 12;
/** `{not near NAME}`: this many words before the phrase say whose it is ("my mum has cancer", "i have cancer"). */
const WHOSE_WINDOW = 3;
/** What ends a sentence between two words: a run in another sentence is not about the phrase. */
const SENTENCE_END = /[.!?\n]/;
const THEMED_WORDS = wordSet(THEMED);
/** How far back `{not after NAME}` looks: "protect kids from skin cancer". */
const NOT_AFTER_WINDOW = 4;
/** What a leading slot may stand for. */
const LEADING_SLOTS: Record<string, WordSet> = {
  someone: wordSet(SOMEONE),
  anyone: wordSet([...SOMEONE, ...ANYONE_ELSE]),
  'pet animal': wordSet(PET_ANIMALS),
  place: wordSet(PLACES),
  anybody: wordSet([...SOMEONE, ...ANYONE_ELSE, ...SPEAKER]),
  having: wordSet(HAVING),
  starting: wordSet(STARTING),
  taking: wordSet(TAKING),
  first: wordSet(FIRST),
  nearly: wordSet(NEARLY),
  calling: wordSet(CALLING),
  habit: wordSet(HABIT),
  structure: wordSet(STRUCTURES),
  // The "t" of "t-boned" (session 45), split from it by the scan: keyed by "boned", since "t" is in every "don't".
  'letter t': wordSet(['t']),
  span: wordSet(SPANS),
};
/**
 * A guard's named lists' runs together (`{unless NAME NAME ...}`, `{not with NAME ...}`, `{not near
 * NAME ...}`), undefined when a name is no list of `lists`. One for all the phrases that name the same
 * lists (only read once made): 598 listed phrases have a tail, before their slots are spelled out.
 */
function namedRuns(lists: Record<string, string[]>): (names: string) => WordRuns | undefined {
  const made = new Map<string, WordRuns | undefined>();
  return (names) => {
    if (made.has(names)) return made.get(names);
    const named = names.split(' ').map((name) => lists[name]);
    const runs = named.every((list) => list !== undefined) ? wordRuns(named.flat() as string[]) : undefined;
    made.set(names, runs);
    return runs;
  };
}
/** `{unless NAME NAME ...}` ("cancer" of a star sign, a charity or a family's history). */
const everydayNext = namedRuns(EVERYDAY_NEXT);
/** "her" as the object that ends a phrase, said of others (saidOfOthers). */
const OBJECT_OTHERS = ['him', 'them'];
/** The first word of a trailing guard (`{unless NAME}`, `{if NAME}`), not of a slot (`{relative}`). */
const TRAILING_GUARD = /^\{(unless|if)$/;
/** Any letter past ASCII: only such a phrase has a spelling without its accents (phrasesOf). */
const NOT_ASCII = /[^\x00-\x7f]/;
const EVERYDAY_BEFORE_WORDS = new Map(Object.entries(EVERYDAY_BEFORE).map(([name, words]) => [name, wordSet(words)]));
/** `{not with NAME ...}`. */
const everydayWith = namedRuns(EVERYDAY_WITH);
/** `{not near NAME ...}`. */
const everydayNear = namedRuns(EVERYDAY_NEAR);
/** `{not just after NAME ...}`: the named lists' runs together. */
function everydayJustBefore(names: string): string[][] | undefined {
  const lists = names.split(' ').map((name) => EVERYDAY_JUST_BEFORE[name]);
  return lists.every((list) => list !== undefined) ? (lists.flat() as string[]).map(wordsOf) : undefined;
}
const CONFIRMED_WITH_RUNS = new Map(Object.entries(CONFIRMED_WITH).map(([name, runs]) => [name, wordRuns(runs)]));

/** What besides its similarity a topic needs to veto by it (sensitiveTopics.ts). */
interface TopicEvidence {
  topic: string;
  vector: Float32Array;
  clears: FirstWordMap<TopicPhrase>;
}

/** A cue word, and the words next to it that give it its everyday sense (CUE_UNLESS: "passed his driving test" is no cue; CUE_NOT_JUST_AFTER: "she is a cancer"). */
interface Cue {
  word: string;
  unless: WordRuns | undefined;
  notJustAfter: string[][] | undefined;
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
  private readonly cues = new FirstWordMap<Cue>();
  private readonly descriptions: string;
  /** Clears most conversations without embedding them; made on the first one judged. */
  private bound: TopicBound | undefined = undefined;

  constructor(private readonly model: SemanticModel | undefined, topics: SensitiveTopic[] = SENSITIVE_TOPICS, readonly minSimilarity = BRAND_SAFETY_MIN_SIMILARITY) {
    this.descriptions = topics.flatMap((topic) => topic.description ?? []).join('\n');
    for (const topic of topics) {
      for (const phrase of phrasesOf(topic)) this.phrasesByFirstWord.add(wordHash(phrase.words[0]!), { topic: topic.name, ...phrase });
      // A topic without a description is judged by its phrases alone.
      const vector = topic.description === undefined ? undefined : model?.embedText(topic.description);
      if (vector === undefined) continue;
      for (const word of topic.cues) {
        if (this.cues.get(wordHash(word))?.some((cue) => cue.word === word) === true) continue;
        const unless = CUE_UNLESS[word];
        const before = CUE_NOT_JUST_AFTER[word];
        this.cues.add(wordHash(word), { word, unless: unless === undefined ? undefined : everydayNext(unless), notJustAfter: before === undefined ? undefined : EVERYDAY_JUST_BEFORE[before]!.map(wordsOf) });
      }
      const clears = new FirstWordMap<TopicPhrase>();
      for (const phrase of topic.clears) {
        const words = wordsOf(phrase);
        clears.add(wordHash(words[0]!), {
          topic: topic.name, words, endsWithPerson: false, after: undefined, notAfter: undefined, notJustAfter: undefined, unless: undefined, confirmedBy: undefined, refutedBy: undefined, refutedNear: undefined,
        });
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
   * here must change it too (semanticMatching.test.ts compares the two). The cue goes first: most
   * conversations have none (81 % of the serve bench's bodies), and a look at their words' first-word
   * filter costs less than a similarity to every topic (bench/README.md, "Semantic: session 42").
   */
  similarityVeto(conversation: Float32Array | undefined, scans: WordScan[]): BrandSafetyVeto | undefined {
    if (conversation === undefined || !scans.some((scan) => hasCue(this.cues, scan))) return undefined;
    for (const { topic, vector, clears } of this.topicVectors) {
      const score = similarity(conversation, vector);
      if (score < this.minSimilarity) continue;
      if (firstPhrase(clears, scans) === undefined) return { topic, by: 'similarity', similarity: score };
    }
    return undefined;
  }
}

/**
 * A topic's phrases, English and other languages, its ambiguous ones with their confirming words,
 * the slots (sensitiveTopics.ts) read: `{relative}`, `{named relative}` and `{pet}` spelled out, a
 * leading `{not with NAME}`, `{not just after NAME}`, `{not after NAME}`, `{someone}` and its kind, a trailing `{unless NAME ...}`
 * and `{if NAME}` kept as word sets and runs. Each also without its accents.
 */
function phrasesOf(topic: SensitiveTopic): Array<Omit<TopicPhrase, 'topic'>> {
  // Keyed by the listed phrase too: the same words with other slots ("radiation" confirmed by a
  // medical word, and after "start") are two phrases.
  const phrases = new Map<string, Omit<TopicPhrase, 'topic'>>();
  const add = (listed: string, text: string, phrase: Omit<TopicPhrase, 'topic' | 'words'>) => {
    phrases.set(`${listed}\n${text}`, { words: wordsOf(text), ...phrase });
    // People type "fallecio" for "falleció", "deces" for "décès"; and Turkish "hayatini" for "hayatını", Polish "zmarl" for "zmarł"
    // (letters of their own, which lose no mark in NFD; also with the other marks kept: "KIZIM ÖLDÜ" lowercases to "kizim öldü").
    // A variant spelled as the text would set the same entry again: so for every plain ASCII phrase
    // (5,500 of the 5,854 listed), whose words were scanned three times in a start (bench/README.md, "Ready after start: session 44").
    if (!NOT_ASCII.test(text)) return;
    const dotless = text.replace(/ı/g, 'i').replace(/ł/g, 'l');
    const plain = dotless.normalize('NFD').replace(/\p{M}/gu, '');
    for (const variant of new Set([dotless, plain])) if (variant !== text) phrases.set(`${listed}\n${variant}`, { words: wordsOf(variant), ...phrase });
  };
  const confirmedBy = wordRuns(topic.confirmedBy);
  const texts = [...[...topic.phrases, ...Object.values(topic.otherLanguages).flat()].map((text) => ({ text, ambiguous: false })), ...topic.ambiguous.map((text) => ({ text, ambiguous: true }))]
    .flatMap(({ text, ambiguous }) => saidOfOthers(text).map((said) => ({ text: said, ambiguous })));
  for (const { text, ambiguous } of texts) {
    let phrase = text;
    // `{not with NAME NAME}` and `{not just after NAME NAME}`: any of the named lists' (session 45: "cancer" of a star sign or a story's plot).
    const refuted = /^\{not with ([a-z ]+)\} /.exec(phrase);
    const refutedBy = refuted === null ? undefined : everydayWith(refuted[1]!);
    if (refuted !== null) phrase = phrase.slice(refuted[0].length);
    const near = /^\{not near ([a-z ]+)\} /.exec(phrase);
    const refutedNear = near === null ? undefined : everydayNear(near[1]!);
    if (near !== null) phrase = phrase.slice(near[0].length);
    const justGuard = /^\{not just after ([a-z ]+)\} /.exec(phrase);
    const notJustAfter = justGuard === null ? undefined : everydayJustBefore(justGuard[1]!);
    if (justGuard !== null) phrase = phrase.slice(justGuard[0].length);
    const guard = /^\{not after ([a-z]+)\} /.exec(phrase);
    const notAfter = guard === null ? undefined : EVERYDAY_BEFORE_WORDS.get(guard[1]!);
    if (guard !== null) phrase = phrase.slice(guard[0].length);
    const lead = /^\{([a-z ]+)\} /.exec(phrase);
    const after = lead === null ? undefined : LEADING_SLOTS[lead[1]!];
    if (lead !== null) phrase = phrase.slice(lead[0].length);
    const confirm = / \{if ([a-z]+)\}$/.exec(phrase);
    const confirmedWith = confirm === null ? undefined : CONFIRMED_WITH_RUNS.get(confirm[1]!);
    if (confirm !== null) phrase = phrase.slice(0, confirm.index);
    const tail = / \{unless ([a-z ]+)\}$/.exec(phrase);
    const unless = tail === null ? undefined : everydayNext(tail[1]!);
    if (tail !== null) phrase = phrase.slice(0, tail.index);
    if (
      (refuted !== null && refutedBy === undefined) || (near !== null && refutedNear === undefined) || (justGuard !== null && notJustAfter === undefined) || (guard !== null && notAfter === undefined) || (lead !== null && after === undefined) ||
      (tail !== null && unless === undefined) || (confirm !== null && confirmedWith === undefined)
    ) {
      throw new Error(`brand safety: unknown slot in "${text}"`);
    }
    const rest = { after, notAfter, notJustAfter, unless, confirmedBy: confirmedWith ?? (ambiguous ? confirmedBy : undefined), refutedBy, refutedNear };
    const slot = /\{(named relative|relative|pet)\}/.exec(phrase);
    if (slot === null) add(text, phrase, { endsWithPerson: false, ...rest });
    else {
      const people = slot[1] === 'relative' ? RELATIVES : slot[1] === 'pet' ? PETS : NAMED_RELATIVES;
      for (const person of people) add(text, phrase.replace(slot[0], person), { endsWithPerson: phrase.endsWith(slot[0]), ...rest });
    }
  }
  return [...phrases.values()];
}

/**
 * A listed phrase and the same said of someone else (OTHER_PERSONS), before its slots are spelled
 * out (`{pet}` stays "my dog", "our dog"): what the speaker says of themselves
 * ("cuts on my thighs", "take my own life") is said of a daughter or a friend too ("cuts on her
 * thighs", "tried to take his own life"), and his, her and their stand for each other. Not the other
 * way: "bruises on her arms" in a care home is abuse, "bruises on my arms" after the gym is not.
 */
function saidOfOthers(text: string): string[] {
  const words = text.split(' ');
  const said = [text];
  words.forEach((word, i) => {
    // "her" that ends a phrase, or comes just before its trailing guard, is its object ("buried her"): said of others it is "him" or "them",
    // not the possessive "their" (session 45: "buried their" vetoed "the early Christians buried their dead"). Before a slot
    // it is the possessive ("lost her {relative}": "lost his {relative}", after review).
    const next = words[i + 1];
    const others = word === 'her' && (next === undefined || TRAILING_GUARD.test(next)) ? OBJECT_OTHERS : OTHER_PERSONS[word];
    for (const other of others ?? []) said.push([...words.slice(0, i), other, ...words.slice(i + 1)].join(' '));
  });
  return said;
}

/** The first phrase of `phrases` these scanned texts contain (an ambiguous one with a confirming word, none with a refuting one), if any. */
function firstPhrase(phrases: FirstWordMap<TopicPhrase>, scans: WordScan[]): TopicPhrase | undefined {
  for (let s = 0; s < scans.length; s++) {
    const scan = scans[s]!;
    for (let i = 0; i < scan.count; i++) {
      const candidates = phrases.get(scan.hashes[i]!);
      if (candidates === undefined) continue;
      for (const phrase of candidates) {
        if (!phraseAt(scan, i, phrase)) continue;
        if (phrase.confirmedBy !== undefined && !hasRun(phrase.confirmedBy, scans)) continue;
        if (phrase.refutedNear !== undefined && refutedNear(phrase.refutedNear, scans, s, i, i + phrase.words.length)) continue;
        if (phrase.refutedBy === undefined || !hasRun(phrase.refutedBy, scans)) return phrase;
      }
    }
  }
  return undefined;
}

function phraseAt(scan: WordScan, start: number, phrase: TopicPhrase): boolean {
  const { words } = phrase;
  const end = start + words.length;
  if (end > scan.count) return false;
  for (let k = 0; k < words.length; k++) if (!scan.wordIs(start + k, words[k]!)) return false;
  if (phrase.after !== undefined && !followsSomeone(scan, start, phrase.after)) return false;
  if (phrase.notAfter !== undefined && isAmongBefore(phrase.notAfter, scan, start)) return false;
  if (phrase.notJustAfter?.some((run) => endsAt(run, scan, start)) === true) return false;
  if (end === scan.count) return true;
  if (isIn(THEMED_WORDS, scan, end)) return false;
  if (phrase.unless !== undefined && runAt(phrase.unless, scan, end)) return false;
  return !(phrase.endsWithPerson && (scan.wordIs(end, 's') || (end + 1 < scan.count && scan.wordIs(end, 'in') && scan.wordIs(end + 1, 'law'))));
}

/**
 * Whether one of `runs` is about the phrase at words `start` to `end` of `scans[at]` (`{not near NAME}`):
 * not when a word just before it makes it the speaker's or the listener's ("my mum has cancer", "mum's
 * cancer", not "the dad has cancer in season 1"); else when the run is in its sentence, at most
 * NEAR_WINDOW words away with no such word between ("the film's plot, where the hero has cancer", not
 * "cancer, we watched the film"), or in the question of a phrase in the answer (the answer follows the
 * question's subject: "plot of the fault in our stars" answered "two teenagers with cancer").
 */
function refutedNear(runs: WordRuns, scans: WordScan[], at: number, start: number, end: number): boolean {
  const scan = scans[at]!;
  for (let k = start - 1; k >= Math.max(0, start - WHOSE_WINDOW) && !sentenceEndsAfter(scan, k); k--) {
    if (isIn(PERSONAL_WORDS, scan, k) || (isIn(NAMED_RELATIVE_WORDS, scan, k) && !(k > 0 && (scan.wordIs(k - 1, 'the') || scan.wordIs(k - 1, 'a'))))) return false;
  }
  if (at > 0 && hasRun(runs, [scans[0]!])) return true;
  for (let i = 0; i < scan.count; i++) {
    const length = runLengthAt(runs, scan, i);
    if (length === 0) continue;
    // The words between the run and the phrase, either side of it.
    const [from, to] = i + length <= start ? [i + length, start] : i >= end ? [end, i] : [start, start];
    if (to - from <= NEAR_WINDOW && aboutEachOther(scan, from, to)) return true;
  }
  return false;
}

/** Whether words `from` to `to` (the gap between a run and a phrase) have no PERSONAL word and no sentence ends in or around them. */
function aboutEachOther(scan: WordScan, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (isIn(PERSONAL_WORDS, scan, k)) return false;
  for (let k = from - 1; k < to; k++) if (sentenceEndsAfter(scan, k)) return false;
  return true;
}

/** Whether a sentence ends between word `k` and the next. */
function sentenceEndsAfter(scan: WordScan, k: number): boolean {
  return k >= 0 && k + 1 < scan.count && SENTENCE_END.test(scan.text.slice(scan.ends[k]!, scan.starts[k + 1]!));
}

/** Whether a scanned text has a cue, not in its everyday sense (CUE_UNLESS, CUE_NOT_JUST_AFTER). */
function hasCue(cues: FirstWordMap<Cue>, scan: WordScan): boolean {
  for (let i = 0; i < scan.count; i++) {
    const candidates = cues.get(scan.hashes[i]!);
    if (candidates === undefined) continue;
    for (const cue of candidates) {
      if (!scan.wordIs(i, cue.word)) continue;
      if (cue.unless !== undefined && i + 1 < scan.count && runAt(cue.unless, scan, i + 1)) continue;
      if (cue.notJustAfter?.some((run) => endsAt(run, scan, i)) !== true) return true;
    }
  }
  return false;
}

/** Whether the words before `start` name one of `someone`: up to two FILLERS between, "in law" after it ("my mother-in-law has just died"). */
function followsSomeone(scan: WordScan, start: number, someone: WordSet): boolean {
  // Each word is asked first whether it is the one named, since "has" is both a filler and `{having}`'s.
  for (let at = start - 1, fillers = 0; at >= 0; at--, fillers++) {
    if (isIn(someone, scan, at)) return true;
    if (at >= 2 && scan.wordIs(at, 'law') && scan.wordIs(at - 1, 'in')) return isIn(someone, scan, at - 2);
    if (fillers === 2 || !isIn(FILLER_WORDS, scan, at)) return false;
  }
  return false;
}

/** Whether one of the NOT_AFTER_WINDOW words before `start` is one of `words`. */
function isAmongBefore(words: WordSet, scan: WordScan, start: number): boolean {
  for (let at = Math.max(0, start - NOT_AFTER_WINDOW); at < start; at++) if (isIn(words, scan, at)) return true;
  return false;
}

/** Whether `run` ends just before word `at`. */
function endsAt(run: string[], scan: WordScan, at: number): boolean {
  const from = at - run.length;
  return from >= 0 && run.every((word, k) => scan.wordIs(from + k, word));
}
/** Whether one of `runs` starts at word `at`. */
function runAt(runs: WordRuns, scan: WordScan, at: number): boolean {
  return runLengthAt(runs, scan, at) > 0;
}
/** How many words the first of `runs` that starts at word `at` has (0: none). */
function runLengthAt(runs: WordRuns, scan: WordScan, at: number): number {
  const candidates = runs.get(scan.hashes[at]!);
  if (candidates === undefined) return 0;
  return candidates.find((words) => at + words.length <= scan.count && words.every((word, k) => scan.wordIs(at + k, word)))?.length ?? 0;
}

function isIn(words: WordSet, scan: WordScan, at: number): boolean {
  const word = words.get(scan.hashes[at]!);
  return word !== undefined && scan.wordIs(at, word);
}

function hasRun(runs: WordRuns, scans: WordScan[]): boolean {
  for (const scan of scans) {
    for (let i = 0; i < scan.count; i++) if (runAt(runs, scan, i)) return true;
  }
  return false;
}
