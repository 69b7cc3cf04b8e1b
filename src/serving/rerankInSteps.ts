import { addToRanked, postingsOf, type AdIndex, type LineItemEntry, type RankedLists } from './adIndex.js';
import { expectedValuePerImpression } from './expectedValue.js';

/**
 * Line items (or matrix rows, or sorted positions) handled between two turns of the event loop: a
 * step costs about a millisecond at 100,000 opted-in line items (bench/README.md, "Semantic at
 * 100,000 line items: session 35").
 */
const RERANK_STEP = 4096;

/**
 * Re-estimates every line item's expected value from its delivery history, redraws its tie-break and
 * re-sorts every ranked list and the semantic matrices, at once. Runs after each learning refresh
 * (in steps, see rerankSteps), never per request.
 */
export function rerank(index: AdIndex): void {
  const steps = rerankSteps(index, Infinity);
  let step = steps.next();
  while (!step.done) step = steps.next();
}

/**
 * rerank in steps of at most `perStep` line items (or rows) each, the caller taking a turn of the
 * event loop at each yield: done at once, a rerank stalled every serve for 460 ms at 100,000
 * opted-in line items every minute (of which laying out the semantic matrices 330 ms).
 *
 * Nothing a serve reads changes until the last step: the new expected values and tie-breaks, the
 * new lists and the matrices' new rows are made aside, and the last step puts them all in place
 * in one turn, so a serve meanwhile selects exactly as before the rerank. The index must not be
 * patched while the steps run (the caller drops them: a patch changes the lists being rebuilt);
 * returns false, changing nothing, when a matrix was laid out again meanwhile (its trained
 * clusters arrived): the caller reranks again.
 */
export function* rerankSteps(index: AdIndex, perStep = RERANK_STEP): Generator<void, boolean> {
  const entries = index.lineItems.slice();
  const count = entries.length;
  const expectedValues = new Float64Array(count);
  const tieBreaks = new Float64Array(count);
  const positionOf = new Map<LineItemEntry, number>();
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % perStep === 0) yield;
    const entry = entries[i]!;
    expectedValues[i] = expectedValuePerImpression(entry.model, entry.bidUsd, entry.stats);
    tieBreaks[i] = Math.random();
    positionOf.set(entry, i);
  }
  const order = yield* rankedPositions(expectedValues, tieBreaks, perStep);
  // Every list a line item is in, rebuilt by walking the line items in rank order: each comes out
  // ranked without a sort of its own (as buildAdIndex does).
  const rebuilt = new Map<RankedLists, RankedLists>();
  for (let k = 0; k < count; k++) {
    if (k > 0 && k % perStep === 0) yield;
    const entry = entries[order[k]!]!;
    for (const lists of postingsOf(index, entry)) {
      let fresh = rebuilt.get(lists);
      if (fresh === undefined) rebuilt.set(lists, (fresh = { certified: [], uncertified: [] }));
      addToRanked(fresh, entry);
    }
  }
  const semantic = rebuilt.get(index.semantic) ?? { certified: [], uncertified: [] };
  const matrices = [];
  for (const list of ['certified', 'uncertified'] as const) {
    const matrix = index.semanticMatrices?.[list];
    if (matrix === undefined) continue;
    const ranked = semantic[list];
    // Each new rank's rank in the matrix now, and its new expected value.
    const rankNow = new Int32Array(count).fill(-1);
    let complete = matrix.entries.length === ranked.length;
    for (let rank = 0; rank < matrix.entries.length; rank++) {
      if (rank % perStep === 0) yield;
      const position = positionOf.get(matrix.entries[rank]!);
      if (position === undefined) complete = false;
      else rankNow[position] = rank;
    }
    const oldRankOfRank = new Int32Array(ranked.length);
    const values = new Float64Array(ranked.length);
    for (let rank = 0; rank < ranked.length; rank++) {
      if (rank > 0 && rank % perStep === 0) yield;
      const position = positionOf.get(ranked[rank]!)!;
      oldRankOfRank[rank] = rankNow[position]!;
      values[rank] = expectedValues[position]!;
      if (oldRankOfRank[rank]! < 0) complete = false;
    }
    if (!complete) {
      // Not the rows laid out now in another order (never seen): laid out whole by the last step.
      matrices.push({ stale: () => false, commit: (entries: LineItemEntry[]) => matrix.fill(entries), list });
      continue;
    }
    const reorder = matrix.reorder(oldRankOfRank, values, perStep);
    yield* reorder.steps;
    matrices.push({ stale: reorder.stale, commit: reorder.commit, list });
  }
  // The last step: everything a serve reads, in one turn.
  yield;
  if (matrices.some((matrix) => matrix.stale())) return false;
  for (let i = 0; i < count; i++) {
    entries[i]!.expectedValue = expectedValues[i]!;
    entries[i]!.tieBreak = tieBreaks[i]!;
  }
  for (const [lists, fresh] of rebuilt) {
    lists.certified = fresh.certified;
    lists.uncertified = fresh.uncertified;
  }
  for (const { commit, list } of matrices) commit(semantic[list]);
  return true;
}

/**
 * The positions sorted by expected value, best first, exact ties by tie-break (rankOrder's order):
 * runs of `perStep` sorted by the engine, then merged a step of `perStep` moves at a time.
 */
function* rankedPositions(values: Float64Array, tieBreaks: Float64Array, perStep: number): Generator<void, Uint32Array> {
  const count = values.length;
  const compare = (a: number, b: number) => values[b]! - values[a]! || tieBreaks[b]! - tieBreaks[a]!;
  let from = new Uint32Array(count);
  for (let i = 0; i < count; i++) from[i] = i;
  for (let start = 0; start < count; start += perStep) {
    if (start > 0) yield;
    from.subarray(start, Math.min(count, start + perStep)).sort(compare);
  }
  let to = new Uint32Array(count);
  for (let width = perStep; width < count; width *= 2) {
    let moved = 0;
    for (let left = 0; left < count; left += 2 * width) {
      const middle = Math.min(left + width, count);
      const right = Math.min(left + 2 * width, count);
      // The left run's first on a tie: stable, as the engine's sort is.
      for (let i = left, j = middle, k = left; k < right; k++) {
        to[k] = j >= right || (i < middle && compare(from[j]!, from[i]!) >= 0) ? from[i++]! : from[j++]!;
        if (++moved === perStep) {
          moved = 0;
          yield;
        }
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
