import { readFileSync } from 'node:fs';

/** Microseconds of one clock tick of /proc's utime and stime (100 a second on Linux). */
export const MICROS_PER_TICK = 1e6 / 100;

/** utime + stime in clock ticks, of a process's main thread and of the whole process (ended threads included). */
export function cpuTicks(pid: number): { main: number; all: number } {
  const ticks = (file: string) => {
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  return { main: ticks(`/proc/${pid}/task/${pid}/stat`), all: ticks(`/proc/${pid}/stat`) };
}

/** Clock ticks of the whole machine since boot (/proc/stat's first line): busy (not idle or iowait), stolen by the host, all. */
function machineTicks(): { busy: number; steal: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
  return { busy: user + nice + system + irq + softirq, steal, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

/** Cores each named process used during a window (all its threads, and its main thread), the machine's busy cores, what no named process used, and the host's steal. */
export interface CpuCores {
  byProcess: Record<string, number>;
  mainThread: Record<string, number>;
  machine: number;
  others: number;
  steal: number;
}

/**
 * Runs `work` and reads how many cores each process in `pids` (and this one, as `self`) and the
 * machine as a whole used meanwhile, from /proc: which side of a load test is CPU-bound, and whether
 * something outside it took the cores.
 */
export async function measureCores<T>(pids: Record<string, number>, work: () => Promise<T>): Promise<{ result: T; cores: CpuCores }> {
  const named = Object.entries({ ...pids, self: process.pid });
  const read = () => ({ machine: machineTicks(), byProcess: named.map(([, pid]) => cpuTicks(pid)) });
  const startedNs = process.hrtime.bigint();
  const before = read();
  const result = await work();
  const after = read();
  const ticksPerCore = (Number(process.hrtime.bigint() - startedNs) / 1e9) * (1e6 / MICROS_PER_TICK);
  const used = (pick: 'all' | 'main') => Object.fromEntries(named.map(([name], i) => [name, (after.byProcess[i]![pick] - before.byProcess[i]![pick]) / ticksPerCore]));
  const byProcess = used('all');
  const machine = (after.machine.busy - before.machine.busy) / ticksPerCore;
  const ofNamed = Object.values(byProcess).reduce((sum, cores) => sum + cores, 0);
  return {
    result,
    cores: { byProcess, mainThread: used('main'), machine, others: Math.max(0, machine - ofNamed), steal: (after.machine.steal - before.machine.steal) / ticksPerCore },
  };
}
