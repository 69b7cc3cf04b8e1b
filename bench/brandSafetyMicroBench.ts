import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { packageRoot } from '../src/packageRoot.js';
import { WordScan } from '../src/serving/contextWords.js';
import { BrandSafety } from '../src/semantic/brandSafety.js';
import { SENSITIVE_TOPICS } from '../src/semantic/sensitiveTopics.js';
import { SemanticModel } from '../src/semantic/semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../src/semantic/wordVectorsFile.js';
import { generateServeRequests } from './catalogGenerator.js';

/**
 * What brand safety costs a serve, in process: the calls selectAd makes (phraseVeto on the scanned
 * query and response; then, when no phrase vetoes, clearsBySimilarity, and similarityVeto of the
 * conversation's vector when that does not clear), over the serve scenario's 250 generated bodies
 * and over every turn of the brand-safety batches and the evaluation set (bench/semantic), the texts
 * scanned beforehand as selectAd has them. With the path of another checkout's src (e.g. main's,
 * `git archive main src | tar -x -C /tmp/main`), that tree's BrandSafety is judged too, on the same
 * scans and the same model, in alternating rounds (A B C, C B A, ...); and this tree's rules without
 * their Hindi phrases. Usage:
 *   npx tsx bench/brandSafetyMicroBench.ts [/tmp/main/src]
 */
const ROUNDS = 12;
const PASSES = 20;

type Judge = Pick<BrandSafety, 'phraseVeto' | 'clearsBySimilarity' | 'similarityVeto'>;

const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);
const folder = path.join(packageRoot, 'bench', 'semantic');
const turns = readdirSync(folder)
  .filter((file) => file.startsWith('brandSafetyHeldOut') || file === 'conversations.txt')
  .flatMap((file) => readFileSync(path.join(folder, file), 'utf8').split('\n'))
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => {
    const fields = line.split(' | ');
    // conversations.txt: label | query | answer; the batches: expected | topic | query | answer.
    return fields.length === 3 ? [fields[1]!, fields[2]!] : [fields[2]!, fields[3]!];
  });
const serve = generateServeRequests(250, ['p']).map(({ context }) => [context.query, context.response]);
const sets = { serve, batches: turns };
const scanned = Object.fromEntries(
  Object.entries(sets).map(([name, texts]) => [
    name,
    texts.map((pair) =>
      pair.map((text) => {
        const scan = new WordScan();
        scan.scan(text);
        return scan;
      }),
    ),
  ]),
) as Record<keyof typeof sets, WordScan[][]>;

/** One serve's brand safety, as selectAd calls it; true when vetoed. */
function judge(safety: Judge, [query, response]: WordScan[]): boolean {
  if (safety.phraseVeto([query!, response!]) !== undefined) return true;
  if (safety.clearsBySimilarity(query!, response!)) return false;
  return safety.similarityVeto(model.embedConversation(query!, response!), [query!, response!]) !== undefined;
}

// The same rules without the Hindi lists session 45 added behind the first-word filter (never measured then).
const withoutHindi = SENSITIVE_TOPICS.map((topic) => ({ ...topic, otherLanguages: Object.fromEntries(Object.entries(topic.otherLanguages).filter(([language]) => language !== 'hi')) as typeof topic.otherLanguages }));
const judges: [string, Judge][] = [['this tree', new BrandSafety(model)], ['this tree without hi', new BrandSafety(model, withoutHindi)]];
const other = process.argv[2];
if (other !== undefined) {
  const module = (await import(path.resolve(other, 'semantic', 'brandSafety.ts'))) as { BrandSafety: new (model: SemanticModel) => Judge };
  judges.push([other, new module.BrandSafety(model)]);
}
for (const [name, safety] of judges) {
  // Warm: the bound is made on the first conversation judged, the code optimised over a few passes.
  for (let pass = 0; pass < 3; pass++) for (const turn of Object.values(scanned).flat()) judge(safety, turn);
  console.log(`${name}: vetoed ${Object.entries(scanned).map(([set, list]) => `${set} ${list.filter((turn) => judge(safety, turn)).length}/${list.length}`).join(', ')}`);
}

const micros = new Map(judges.flatMap(([name]) => Object.keys(scanned).map((set) => [`${name} ${set}`, [] as number[]])));
let sink = 0;
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 4 === 0 || round % 4 === 3 ? judges : [...judges].reverse();
  for (const [name, safety] of order) {
    for (const [set, list] of Object.entries(scanned)) {
      const started = performance.now();
      for (let pass = 0; pass < PASSES; pass++) for (const turn of list) sink += judge(safety, turn) ? 1 : 0;
      micros.get(`${name} ${set}`)!.push(((performance.now() - started) * 1000) / (PASSES * list.length));
    }
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const set of Object.keys(scanned)) {
  const [mine, ...others] = judges.map(([name]) => median(micros.get(`${name} ${set}`)!));
  console.log(
    `${set} (${scanned[set as keyof typeof sets].length} turns), median us per serve over ${ROUNDS} rounds of ${PASSES} passes: this tree ${mine!.toFixed(2)}` +
      others.map((theirs, k) => `; ${judges[k + 1]![0]} ${theirs.toFixed(2)} (this tree / it ${(mine! / theirs).toFixed(3)})`).join(''),
  );
}
if (sink < 0) console.log(sink);
