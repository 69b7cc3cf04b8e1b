import { randomUUID } from 'node:crypto';
import { selectAd, type Selection } from '../src/serving/selectAd.js';
import type { SemanticModel } from '../src/semantic/semanticModel.js';
import { generateCatalog } from './catalogGenerator.js';
import { seededRandom } from './seededRandom.js';
import { inProcessIndex } from './inProcessIndex.js';
import { optedIn, serveBodies } from './scenarios/serveSemanticScenario.js';

/** How the clustered search agreed with comparing every opted-in line item on one catalog's bodies. */
export interface Agreement {
  bodies: number;
  /** Bodies served the same ad (line item and creative) by both searches. */
  same: number;
  exactAds: number;
  clusteredAds: number;
  /** Bodies the exhaustive search served an ad matched by similarity, and how many of those the clustered one served the same line item (its recall@1). */
  exactBySimilarity: number;
  found: number;
  /** Rows the clustered serves compared the conversation with (centres, probed rows, top ranks): the search's work, whatever the machine. */
  rows: number;
  /** Each miss: the exhaustive match's similarity, and what the clustered search served instead. */
  missed: string[];
  /** Each list's rows and clusters. */
  lists: string[];
  /** Warm selectAd of each search over the bodies, us a call (for scale only). */
  timed: (rounds: number) => { clustered: number; exact: number };
}

/**
 * The serve-semantic bench's catalog (every line item opted in; generateCatalog's seed 7 is the
 * bench's) and its 500 bodies, selected in process from two indexes built from the same rows with the
 * same tie-breaks: the clustered search as configured, and every opted-in line item compared
 * (`semanticClusteredFrom: Infinity`, the exact scan of small lists). Measures the search's quality
 * (bench/semanticRecall.ts; its documented share is asserted in test/unit/semanticMatching.test.ts).
 */
export async function searchAgreement(model: SemanticModel, seed: number, lineItems: number): Promise<Agreement> {
  const placements = Array.from({ length: 40 }, (_, i) => ({ id: randomUUID(), publisher_id: 'p', certification: i < 20 ? 'certified' : 'uncertified' }));
  const bodies = serveBodies(placements.map((placement) => placement.id));
  const nowMs = Date.now();
  const catalog = optedIn(generateCatalog({ lineItems, lineItemsPerCampaign: 5, placements: placements.map((placement) => placement.id), seed }), 1);
  // The index breaks exact ties by Math.random(): the same sequence for both, so that only the search differs.
  const random = Math.random;
  Math.random = seededRandom(5);
  const clustered = await inProcessIndex(catalog, placements, model);
  Math.random = seededRandom(5);
  const exact = await inProcessIndex(catalog, placements, model, Infinity);
  Math.random = random;
  const select = (index: typeof exact, body: (typeof bodies)[number]['body']) =>
    selectAd(index, body.placement_id, index.placements.get(body.placement_id)!, { query: body.context.query, response: body.context.response, nowMs, evenShare: 1 });
  const key = (selection: Selection | undefined) => (selection ? `${selection.lineItem.id}/${selection.creative.id}` : '-');
  const matrices = Object.entries(clustered.semanticMatrices!);
  const agreement: Agreement = {
    bodies: bodies.length,
    same: 0,
    exactAds: 0,
    clusteredAds: 0,
    exactBySimilarity: 0,
    found: 0,
    rows: 0,
    missed: [],
    lists: matrices.map(([list, matrix]) => {
      const clusters = matrix.storedClusters(matrix.vectors)?.centres.length;
      return `${list} ${matrix.entries.length} rows, ${clusters === undefined ? 'scanned whole' : `${clusters} clusters`}`;
    }),
    timed: (rounds) => {
      const timed = (index: typeof exact) => {
        const start = performance.now();
        for (let round = 0; round < rounds; round++) for (const { body } of bodies) select(index, body);
        return ((performance.now() - start) * 1000) / (rounds * bodies.length);
      };
      return { clustered: timed(clustered), exact: timed(exact) };
    },
  };
  for (const { body } of bodies) {
    const wanted = select(exact, body);
    for (const [, matrix] of matrices) matrix.scannedRows = 0;
    const got = select(clustered, body);
    for (const [, matrix] of matrices) agreement.rows += matrix.scannedRows;
    if (key(wanted) === key(got)) agreement.same += 1;
    if (wanted) agreement.exactAds += 1;
    if (got) agreement.clusteredAds += 1;
    if (wanted?.match?.by === 'similarity') {
      agreement.exactBySimilarity += 1;
      if (got?.lineItem.id === wanted.lineItem.id) agreement.found += 1;
      else agreement.missed.push(`${wanted.match.similarity?.toFixed(3)} -> ${got ? `${got.match?.by} ${got.match?.similarity?.toFixed(3) ?? ''}` : 'no ad'}`);
    }
  }
  return agreement;
}
