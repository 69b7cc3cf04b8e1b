import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EmbeddedClickHouseClaim } from '../../src/store/embeddedClickHouseClaim.js';

/** A port nothing listens on: bound, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the embedded ClickHouse claim', () => {
  it('says why when the server cannot be asked, rather than that another instance holds it', async () => {
    const url = `postgres://adsvc@127.0.0.1:${await closedPort()}/adsvc`;
    await expect(EmbeddedClickHouseClaim.take(url)).rejects.toThrow(/ECONNREFUSED/);
  });
});
