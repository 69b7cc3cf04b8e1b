import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { packageRoot } from '../src/packageRoot.js';

/** One row of a scenario's table. */
export interface Figure {
  figure: string;
  result: string;
  /** The target, e.g. '>= 10,000 req/s'; '' when the row is context, not a target. */
  target?: string;
  /** The same measure on the stub (or the raw table, for reporting). */
  baseline?: string;
  ratio?: string;
  /** Whether the target was met; undefined when the row has no target. */
  met?: boolean;
}

export interface ScenarioReport {
  scenario: string;
  /** What the baseline column is: 'fastify stub', 'raw events_v1', 'client insert'... */
  baselineName?: string;
  figures: Figure[];
  /** Sizes, settings and caveats a reader needs to trust the figures. */
  notes: string[];
  /** Errors the service returned, lost events, a route that is missing: any of these fails the run. */
  failures: string[];
}

export interface RunInfo {
  date: string;
  commit: string;
  machine: string;
  command: string;
}

export function runInfo(command: string): RunInfo {
  const cpus = os.cpus();
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: packageRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown';
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: dirty ? `${commit} (with uncommitted changes)` : commit,
    machine: `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`,
    command,
  };
}

/** The markdown block a run prints and records into bench/README.md. */
export function renderReport(report: ScenarioReport, info: RunInfo): string {
  const withBaseline = report.baselineName !== undefined;
  const rows = report.figures.map((figure) => {
    const cells = [figure.figure, figure.result, figure.target ?? '', figure.met === undefined ? '' : figure.met ? 'met' : '**missed**'];
    if (withBaseline) cells.push(figure.baseline ?? '', figure.ratio ?? '');
    return `| ${cells.join(' | ')} |`;
  });
  const header = withBaseline
    ? [`| figure | result | target | verdict | ${report.baselineName} | ratio |`, '|---|---|---|---|---|---|']
    : ['| figure | result | target | verdict |', '|---|---|---|---|'];
  const lines = [
    `### ${report.scenario}`,
    '',
    `\`${info.command}\` — ${info.date}, commit ${info.commit}`,
    `Machine: ${info.machine}`,
    '',
    ...header,
    ...rows,
    '',
    ...report.notes.map((note) => `- ${note}`),
    ...report.failures.map((failure) => `- **FAILED**: ${failure}`),
  ];
  return lines.join('\n') + '\n';
}

export function formatNumber(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

/** `a / b` as `0.62x`. */
export function ratio(a: number, b: number): string {
  return b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}x` : 'n/a';
}
