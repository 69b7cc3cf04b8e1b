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
