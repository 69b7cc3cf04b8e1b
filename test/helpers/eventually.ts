/**
 * Polls until check() returns a value that is not undefined, or fails after timeoutMs naming what
 * it waited for. Tests wait on a condition with this instead of sleeping for a guessed time.
 */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000, pollMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
