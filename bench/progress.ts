const startedAt = performance.now();

/** A line on stderr saying what the bench is doing (stdout carries only the result tables). */
export function progress(message: string): void {
  process.stderr.write(`[bench +${((performance.now() - startedAt) / 1000).toFixed(1)}s] ${message}\n`);
}
