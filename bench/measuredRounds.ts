import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadResult } from './loadTest.js';
import { cpuTicks, measureCores, MICROS_PER_TICK, type CpuCores } from './processCpu.js';
import { formatNumber, ratio, type Figure } from './scenarioReport.js';

/**
 * A round in which processes other than the service, the stub and the load generator used more
 * than this many cores was disturbed (others' work outside the CPU lock): the quiet ratio leaves
 * out each pair of rounds (a service round and the stub round next to it) with a disturbed one.
 */
const QUIET_OTHERS_CORES = 0.2;

/** One timed round of load on one side, with the cores each process used meanwhile. */
export interface MeasuredRound {
  cores: CpuCores;
  seconds: number;
  responses: number;
}

/**
 * The rounds of a scenario that loads the service and its stub in turn (track, serve): each round's
 * cores are read from /proc for the named processes (`pids`: service, stub; the bench itself as
 * the load generator, `self`), and after each round the bench waits for the service to settle
 * (its flush into ClickHouse and the merges after it run on for a second or two), counting the
 * service's CPU meanwhile in `settleTicks`, so that no round starts during the other side's leftovers.
 */
export function roundRecorder(pids: Record<string, number>, servicePid: number | undefined) {
  const serviceRounds: MeasuredRound[] = [];
  const stubRounds: MeasuredRound[] = [];
  const settleTicks = { all: 0, main: 0 };
  const measure = async (into: MeasuredRound[], run: () => Promise<LoadResult>): Promise<LoadResult> => {
    const { result, cores } = await measureCores(pids, run);
    into.push({ cores, seconds: result.durationSeconds, responses: result.responses });
    if (servicePid) {
      const tail = await settled(servicePid);
      settleTicks.all += tail.all;
      settleTicks.main += tail.main;
    }
    return result;
  };
  return {
    serviceRounds,
    stubRounds,
    settleTicks,
    service: (run: () => Promise<LoadResult>) => measure(serviceRounds, run),
    stub: (run: () => Promise<LoadResult>) => measure(stubRounds, run),
  };
}

/** Waits until the process uses less than a tenth of a core over 200 ms (at most 5 s); returns the clock ticks it used meanwhile. */
async function settled(pid: number): Promise<{ all: number; main: number }> {
  const until = Date.now() + 5000;
  const first = cpuTicks(pid);
  let before = first;
  while (Date.now() < until) {
    await sleep(200);
    const now = cpuTicks(pid);
    const quiet = now.all - before.all < 2;
    before = now;
    if (quiet) break;
  }
  return { all: before.all - first.all, main: before.main - first.main };
}

/**
 * A process's CPU time per request it answered, all threads and main thread, counted over every
 * round and the waits between them (`between`, clock ticks: the service's background work runs on
 * after its round), and the load generator's in its own rounds.
 */
export function cpuPerAnswer(own: readonly MeasuredRound[], other: readonly MeasuredRound[], name: string, between = { all: 0, main: 0 }): string {
  const micros = (rounds: readonly MeasuredRound[], cores: (round: MeasuredRound) => number | undefined) =>
    rounds.reduce((sum, round) => sum + (cores(round) ?? Number.NaN) * round.seconds * 1e6, 0);
  const responses = own.reduce((sum, round) => sum + round.responses, 0);
  const all = (micros(own, (round) => round.cores.byProcess[name]) + micros(other, (round) => round.cores.byProcess[name]) + between.all * MICROS_PER_TICK) / responses;
  const main = (micros(own, (round) => round.cores.mainThread[name]) + micros(other, (round) => round.cores.mainThread[name]) + between.main * MICROS_PER_TICK) / responses;
  const generator = micros(own, (round) => round.cores.byProcess.self) / responses;
  return Number.isFinite(all) ? `${all.toFixed(1)}, ${main.toFixed(1)} us (${generator.toFixed(1)} us)` : 'n/a (--url)';
}

/** The ratio over the pairs of rounds (service i, stub i: next to each other) in which no one else took the cores. */
export function quietRatio(what: string, serviceRounds: readonly MeasuredRound[], stubRounds: readonly MeasuredRound[]): Figure {
  const quiet = serviceRounds.map((_, i) => i).filter((i) => serviceRounds[i]!.cores.others <= QUIET_OTHERS_CORES && stubRounds[i]!.cores.others <= QUIET_OTHERS_CORES);
  const rate = (rounds: readonly MeasuredRound[]) => {
    const picked = quiet.map((i) => rounds[i]!);
    return picked.reduce((sum, round) => sum + round.responses, 0) / picked.reduce((sum, round) => sum + round.seconds, 0);
  };
  const figure = `${what}, undisturbed pairs of rounds (others <= ${QUIET_OTHERS_CORES} cores)`;
  if (quiet.length === 0) return { figure, result: `none of ${serviceRounds.length}` };
  return {
    figure,
    result: `${formatNumber(rate(serviceRounds))} req/s (${quiet.length} of ${serviceRounds.length} pairs)`,
    baseline: `${formatNumber(rate(stubRounds))} req/s`,
    ratio: ratio(rate(serviceRounds), rate(stubRounds)),
  };
}

/**
 * Every round's cores, for the scenario's notes, with the loaded side's main-thread CPU per answer
 * in that round (how much of a round-to-round change in req/s is the side's own cost).
 */
export function coresNotes(serviceRounds: readonly MeasuredRound[], stubRounds: readonly MeasuredRound[]): string {
  return [...serviceRounds.map((round, i) => coresNote(`service ${i + 1}`, 'service', round)), ...stubRounds.map((round, i) => coresNote(`stub ${i + 1}`, 'stub', round))].join('; ');
}

function coresNote(label: string, loaded: string, { cores, seconds, responses }: MeasuredRound): string {
  const named = Object.entries(cores.byProcess).map(([name, used]) =>
    name === 'self' ? `generator ${used.toFixed(2)}` : `${name} ${used.toFixed(2)} (main thread ${cores.mainThread[name]!.toFixed(2)})`,
  );
  const mainPerAnswer = cores.mainThread[loaded] === undefined ? '' : ` (${formatNumber(responses / seconds)} req/s, main thread ${((cores.mainThread[loaded] * seconds * 1e6) / responses).toFixed(1)} us an answer)`;
  return `${label}${mainPerAnswer}: ${named.join(', ')}, others ${cores.others.toFixed(2)}, steal ${cores.steal.toFixed(2)}`;
}
