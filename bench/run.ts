import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/packageRoot.js';
import { optionsAsFlags, parseBenchOptions, scenarioNames, type BenchOptions, type ScenarioName } from './benchOptions.js';
import { renderReport, runInfo, type ScenarioReport } from './scenarioReport.js';
import { removeTemporaryDataDirs } from './serviceProcess.js';
import { serveScenario } from './scenarios/serveScenario.js';
import { trackScenario } from './scenarios/trackScenario.js';
import { ingestScenario } from './scenarios/ingestScenario.js';
import { reportScenario } from './scenarios/reportScenario.js';
import { managementScenario } from './scenarios/managementScenario.js';
import { importScenario } from './scenarios/importScenario.js';
import { serveCountsScenario } from './scenarios/serveCountsScenario.js';

const scenarios: Record<ScenarioName, (options: BenchOptions) => Promise<ScenarioReport>> = {
  serve: serveScenario,
  track: trackScenario,
  ingest: ingestScenario,
  report: reportScenario,
  management: managementScenario,
  import: importScenario,
  'serve-counts': serveCountsScenario,
};

const README = path.join(packageRoot, 'bench', 'README.md');

/**
 * `npm run bench -- <scenario|all> [flags]`: prints one markdown table per scenario on stdout and
 * exits 1 when the service returned errors, lost events or a route is missing. `all` runs each
 * scenario in its own process: embedded ClickHouse binds one data directory per process.
 */
async function main(argv: string[]): Promise<number> {
  const options = parseBenchOptions(argv);
  if (options.scenario === 'all') return runAll(options);
  const command = `npm run bench -- ${argv.join(' ')}`.replace(/--admin-token \S+/, '--admin-token <token>');
  let report: ScenarioReport;
  try {
    report = await scenarios[options.scenario](options);
  } finally {
    removeTemporaryDataDirs();
  }
  const markdown = renderReport(report, runInfo(command));
  process.stdout.write(`\n${markdown}\n`);
  if (options.record) recordInReadme(options.scenario, markdown);
  return report.failures.length === 0 ? 0 : 1;
}

async function runAll(options: BenchOptions): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  const failed: string[] = [];
  const started = Date.now();
  for (const name of scenarioNames) {
    if (name === 'report' && options.url) {
      process.stderr.write('skipping report: it writes 100M events straight into ClickHouse and cannot run against --url\n');
      continue;
    }
    if (name === 'serve-counts' && options.url) {
      process.stderr.write('skipping serve-counts: it starts two services of its own\n');
      continue;
    }
    if (name === 'import' && options.url) {
      process.stderr.write('skipping import: it samples the RSS of a service it started and cannot run against --url\n');
      continue;
    }
    process.stderr.write(`\n== ${name} ==\n`);
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [...process.execArgv, script, name, ...optionsAsFlags(options)], { stdio: 'inherit' });
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) failed.push(name);
  }
  process.stderr.write(`\nall scenarios took ${((Date.now() - started) / 60_000).toFixed(1)} min${failed.length ? `; failed: ${failed.join(', ')}` : ''}\n`);
  return failed.length === 0 ? 0 : 1;
}

/** Replaces the block between `<!-- results:NAME -->` and `<!-- /results:NAME -->` in bench/README.md. */
function recordInReadme(name: string, markdown: string): void {
  const begin = `<!-- results:${name} -->`;
  const end = `<!-- /results:${name} -->`;
  const readme = readFileSync(README, 'utf8');
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`bench/README.md has no ${begin} ... ${end} block to record into`);
  writeFileSync(README, `${readme.slice(0, from + begin.length)}\n${markdown}${readme.slice(to)}`);
  process.stderr.write(`recorded in bench/README.md (${name})\n`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench: ${(error as Error).stack ?? (error as Error).message}`);
    process.exit(1);
  },
);
