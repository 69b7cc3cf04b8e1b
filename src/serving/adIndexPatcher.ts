import {
  addToRanked,
  buildEntry,
  groupCreatives,
  internPhrase,
  postingsOf,
  rankOrder,
  semanticMatrices,
  type AdIndex,
  type IndexBuildDeps,
  type LineItemEntry,
  type Phrase,
  type RankedLists,
  type SkipReason,
} from './adIndex.js';
import type { CatalogKeys, CatalogRows } from './catalogQueries.js';
import { expectedValuePerImpression } from './expectedValue.js';

/** What one patch did to the line items: entries taken out (changed or gone) and entries put in. */
export interface IndexPatch {
  removed: LineItemEntry[];
  added: LineItemEntry[];
  skipped: Partial<Record<SkipReason, number>>;
}

/** Above this many new entries for one list, appending and sorting beats inserting one by one. */
const SORT_INSTEAD_OF_INSERT = 32;
/** Line items remembered a turn by rememberAside. */
const REMEMBER_STEP = 4096;
/** Up to this many entries leaving, each is found and spliced out of a list; more are filtered out (see without). */
const SPLICE_AT_MOST = 16;

/**
 * Applies reloaded catalog rows to a built index in place, so a change costs what it touches and
 * not a rebuild: the changed line items leave every list they were in and their new entries go
 * into the lists they belong in, at their rank; tokens and placements are replaced one by one.
 * Runs synchronously, so no serve sees an index half-patched.
 */
export class AdIndexPatcher {
  private readonly entries = new Map<string, LineItemEntry>();
  private readonly byCampaign = new Map<string, Set<string>>();
  private readonly phrases = new Map<string, Phrase>();
  /** How many line items use each keyword (include or exclude); an unused one leaves the index. */
  private readonly phraseUses = new Map<Phrase, number>();
  private countryTargeted = 0;
  /** How many of the index's line items the maps hold (-1: not even its keywords yet); all once remembered. */
  private rememberedUpTo = -1;
  private remembered = false;

  constructor(
    private readonly index: AdIndex,
    private readonly deps: IndexBuildDeps,
  ) {}

  /**
   * The maps above, of the index as built: made after the start (rememberAside), not on a start's
   * path, and what is left of them at the first patch. Nothing but this patcher changes which line
   * items and keywords the index holds, so they are the same as at the build.
   */
  private rememberIndex(): void {
    this.rememberMore(Infinity);
  }

  /**
   * Makes the maps a step of 4,096 line items a turn, so that the first change after a start does
   * not wait for them: 160-280 ms at 100,000 line items (bench/README.md, "Semantic at 100,000 line
   * items: session 35"). A patch meanwhile makes the rest at once first.
   */
  async rememberAside(): Promise<void> {
    while (!this.rememberMore(REMEMBER_STEP)) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Remembers up to `count` more of the index's line items (its keywords first); true once all are. */
  private rememberMore(count: number): boolean {
    if (this.remembered) return true;
    if (this.rememberedUpTo < 0) {
      for (const phrase of this.index.phrases) this.phrases.set(phrase.words.join(' '), phrase);
      this.rememberedUpTo = 0;
    }
    const entries = this.index.lineItems;
    const end = Math.min(entries.length, this.rememberedUpTo + count);
    for (let i = this.rememberedUpTo; i < end; i++) this.remember(entries[i]!);
    this.rememberedUpTo = end;
    this.remembered = end === entries.length;
    return this.remembered;
  }

  /** Replaces everything the keys name with what the rows say (a key without a row is dropped). */
  apply(keys: CatalogKeys, rows: CatalogRows, horizon: string): IndexPatch {
    this.rememberIndex();
    const index = this.index;
    index.version = horizon;
    this.patchTokens(keys.tokenHashes, rows.tokens);
    for (const id of keys.placementIds) index.placements.delete(id);
    for (const row of rows.placements) index.placements.set(row.id, { publisherId: row.publisher_id, certified: row.certification === 'certified' });

    const affected = new Set(keys.lineItemIds);
    for (const campaignId of keys.campaignIds) for (const id of this.byCampaign.get(campaignId) ?? []) affected.add(id);
    for (const row of rows.lineItems) affected.add(row.id);
    const rowsById = new Map(rows.lineItems.map((row) => [row.id, row]));
    const creativesByLineItem = groupCreatives(rows.creatives);
    const phraseFor = (words: string[]) => internPhrase(index, this.phrases, words);
    const patch: IndexPatch = { removed: [], added: [], skipped: {} };
    for (const id of affected) {
      const old = this.entries.get(id);
      if (old) patch.removed.push(old);
    }
    // Out first, so that a keyword only the old entries used is dropped before the new ones intern theirs.
    this.remove(patch.removed);
    for (const id of affected) {
      const row = rowsById.get(id);
      if (!row) continue;
      const built = buildEntry(row, creativesByLineItem.get(id), this.deps, phraseFor);
      if (typeof built === 'string') {
        patch.skipped[built] = (patch.skipped[built] ?? 0) + 1;
        this.deps.unservable?.(row);
        continue;
      }
      built.expectedValue = expectedValuePerImpression(built.model, built.bidUsd, built.stats);
      built.tieBreak = Math.random();
      patch.added.push(built);
    }
    this.add(patch.added);
    if ([...patch.removed, ...patch.added].some((entry) => entry.semantic !== null)) this.patchSemanticMatrices(patch);
    return patch;
  }

  private patchTokens(hashes: string[], live: CatalogRows['tokens']): void {
    const index = this.index;
    let revoked = false;
    for (const hash of hashes) revoked = index.publisherByTokenHash.delete(hash) || revoked;
    for (const row of live) index.publisherByTokenHash.set(row.token_hash, row.publisher_id);
    // Remembered tokens are kept by their plain text, not their hash: forget them all, each live one is hashed again once.
    if (revoked) index.publisherByKnownToken.clear();
  }

  private remove(entries: LineItemEntry[]): void {
    if (entries.length === 0) return;
    const index = this.index;
    const gone = new Set(entries);
    const touched = new Set<RankedLists>();
    for (const entry of entries) {
      this.forget(entry);
      for (const lists of postingsOf(index, entry)) touched.add(lists);
    }
    for (const lists of touched) {
      lists.certified = without(lists.certified, gone);
      lists.uncertified = without(lists.uncertified, gone);
    }
    index.lineItems = without(index.lineItems, gone);
    for (const [placementId, lists] of index.openByPlacement) {
      if (touched.has(lists) && lists.certified.length === 0 && lists.uncertified.length === 0) index.openByPlacement.delete(placementId);
    }
    this.dropUnusedPhrases(entries);
    index.countryTargeting = this.countryTargeted > 0;
  }

  private add(entries: LineItemEntry[]): void {
    const index = this.index;
    const additions = new Map<RankedLists, RankedLists>();
    const queue = (lists: RankedLists, entry: LineItemEntry) => {
      let pending = additions.get(lists);
      if (!pending) additions.set(lists, (pending = { certified: [], uncertified: [] }));
      addToRanked(pending, entry);
    };
    for (const entry of entries) {
      this.remember(entry);
      index.lineItems.push(entry);
      for (const lists of postingsOf(index, entry)) queue(lists, entry);
    }
    for (const [lists, pending] of additions) {
      insertRanked(lists.certified, pending.certified);
      insertRanked(lists.uncertified, pending.uncertified);
    }
    index.countryTargeting = this.countryTargeted > 0;
  }

  private remember(entry: LineItemEntry): void {
    this.entries.set(entry.id, entry);
    let ids = this.byCampaign.get(entry.campaignId);
    if (!ids) this.byCampaign.set(entry.campaignId, (ids = new Set()));
    ids.add(entry.id);
    for (const phrase of entry.includePhrases) this.phraseUses.set(phrase, (this.phraseUses.get(phrase) ?? 0) + 1);
    for (const phrase of entry.excludePhrases) this.phraseUses.set(phrase, (this.phraseUses.get(phrase) ?? 0) + 1);
    if (entry.countriesInclude !== null || entry.countriesExclude !== null) this.countryTargeted += 1;
  }

  private forget(entry: LineItemEntry): void {
    if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id);
    const ids = this.byCampaign.get(entry.campaignId);
    ids?.delete(entry.id);
    if (ids?.size === 0) this.byCampaign.delete(entry.campaignId);
    for (const phrase of [...entry.includePhrases, ...entry.excludePhrases]) this.phraseUses.set(phrase, this.phraseUses.get(phrase)! - 1);
    if (entry.countriesInclude !== null || entry.countriesExclude !== null) this.countryTargeted -= 1;
  }

  /** Keywords no line item uses any more leave the lookups, so a changing catalog does not grow them. */
  private dropUnusedPhrases(entries: LineItemEntry[]): void {
    const unused = new Set<Phrase>();
    for (const entry of entries) {
      for (const phrase of [...entry.includePhrases, ...entry.excludePhrases]) if (this.phraseUses.get(phrase) === 0) unused.add(phrase);
    }
    if (unused.size === 0) return;
    const index = this.index;
    for (const phrase of unused) {
      this.phraseUses.delete(phrase);
      this.phrases.delete(phrase.words.join(' '));
      index.phrasesByFirstWord.remove(phrase.hashes[0]!, phrase);
    }
    index.phrases = index.phrases.filter((phrase) => !unused.has(phrase));
  }

  /**
   * The semantic matrices hold the semantic lists' rows in rank order: the rows of the opted-in
   * line items that came or went are put in or taken out (SemanticMatrix.update).
   */
  private patchSemanticMatrices(patch: IndexPatch): void {
    const index = this.index;
    const model = this.deps.semanticModel;
    if (!model) return;
    index.semanticMatrices ??= semanticMatrices(model, this.deps);
    const removed = new Set(patch.removed);
    const added = new Set(patch.added);
    index.semanticMatrices.certified.update(index.semantic.certified, removed, added);
    index.semanticMatrices.uncertified.update(index.semantic.uncertified, removed, added);
  }
}

/**
 * The list less the entries `gone`. A few are found by indexOf and spliced out in place: it
 * compares references, where a filter's Set lookup reads each entry's hash, a cache miss a line
 * item (18 ms of a change at 100,000 line items, 60 ns an entry over the semantic lists and
 * lineItems). Many are filtered out.
 */
function without(list: LineItemEntry[], gone: ReadonlySet<LineItemEntry>): LineItemEntry[] {
  if (gone.size > SPLICE_AT_MOST) return list.filter((entry) => !gone.has(entry));
  for (const entry of gone) {
    const at = list.indexOf(entry);
    if (at >= 0) list.splice(at, 1);
  }
  return list;
}

/** Adds entries to a list kept in rank order. */
function insertRanked(list: LineItemEntry[], entries: LineItemEntry[]): void {
  if (entries.length > SORT_INSTEAD_OF_INSERT) {
    for (const entry of entries) list.push(entry);
    list.sort(rankOrder);
    return;
  }
  for (const entry of entries) {
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (rankOrder(list[middle]!, entry) <= 0) low = middle + 1;
      else high = middle;
    }
    list.splice(low, 0, entry);
  }
}
