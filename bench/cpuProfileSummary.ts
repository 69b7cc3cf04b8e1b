import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../src/packageRoot.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds of the monotonic clock; each sample's time is this plus the deltas up to it. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  share: number;
}

/**
 * The functions that spent the most CPU time themselves (not in their callees) in the V8 profile
 * that `node --cpu-prof` wrote into `directory`: where a missed target is actually lost. With
 * `windows` (LoadResult.windows), only the samples taken while the service was under load count:
 * the whole profile also holds the start, the seeding, the stub's rounds and the checks, when the
 * service waits, which would show as "(idle)".
 */
export function topSelfTime(directory: string, top = 12, windows?: ReadonlyArray<readonly [number, number]>): SelfTime[] {
  const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'));
  if (!file) return [];
  const profile = JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as CpuProfile;
  const nameOf = new Map(profile.nodes.map((node) => [node.id, describe(node)]));
  const micros = new Map<string, number>();
  let total = 0;
  let sampledAt = profile.startTime;
  profile.samples.forEach((nodeId, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    sampledAt += delta;
    if (windows && !windows.some(([start, end]) => sampledAt >= start && sampledAt < end)) return;
    const name = nameOf.get(nodeId) ?? '(unknown)';
    micros.set(name, (micros.get(name) ?? 0) + delta);
    total += delta;
  });
  return [...micros.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, spent]) => ({ name, share: total > 0 ? spent / total : 0 }));
}

function describe(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  const local = url.replace(/^file:\/\//, '');
  const shown = local.startsWith(packageRoot) ? path.relative(packageRoot, local) : local.replace(/^.*node_modules\//, '');
  return `${functionName || '(anonymous)'} ${shown}:${lineNumber + 1}`;
}

export function formatSelfTimes(entries: readonly SelfTime[]): string {
  return entries.map((entry) => `${(entry.share * 100).toFixed(1)}% ${entry.name}`).join('; ');
}
