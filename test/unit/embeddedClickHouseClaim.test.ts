import { describe, expect, it } from 'vitest';
import { EmbeddedClickHouseClaim } from '../../src/store/embeddedClickHouseClaim.js';
import { freePort } from '../helpers/freePort.js';

describe('the embedded ClickHouse claim', () => {
  it('says why when the server cannot be asked, rather than that another instance holds it', async () => {
    const url = `postgres://adsvc@127.0.0.1:${await freePort()}/adsvc`;
    await expect(EmbeddedClickHouseClaim.take(url)).rejects.toThrow(/ECONNREFUSED/);
  });
});
