import path from 'node:path';
import type { Config } from '../config.js';
import { openClickHouse } from '../store/clickhouse.js';
import { completeQuarantinedWrites, QuarantinedWriteError } from '../tracking/quarantinedWrite.js';
import { CommandError } from './adminCommands.js';

export const completeQuarantineUsage = 'adsvc quarantine complete FILE...';

/**
 * `adsvc quarantine complete FILE...`: makes the store whole with writes the event pipeline
 * quarantined, once the cause is fixed (quarantinedWrite.ts). Not an admin API command: it talks to
 * ClickHouse itself, as `migrate` does. Embedded chdb belongs to one process, so the service on
 * that DATA_DIR must be stopped first (the engine's lock refuses otherwise); with CLICKHOUSE_URL it
 * may run beside the service. Each FILE is a name in DATA_DIR/quarantine, or its path.
 */
export async function completeQuarantine(config: Config, args: string[]): Promise<number> {
  if (args.length === 0) throw new CommandError(`FILE is required: ${completeQuarantineUsage}`);
  const quarantineDirectory = path.join(config.DATA_DIR, 'quarantine');
  for (const file of args) {
    const given = path.dirname(path.resolve(file));
    if (file.includes(path.sep) && given !== path.resolve(quarantineDirectory) && given !== path.resolve(quarantineDirectory, 'completed')) {
      throw new CommandError(`${file} is not in ${quarantineDirectory} (DATA_DIR): the command completes the quarantined writes of this DATA_DIR`);
    }
  }
  let ch;
  try {
    ch = await openClickHouse({
      url: config.CLICKHOUSE_URL,
      user: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
      database: config.CLICKHOUSE_DATABASE,
      cluster: config.CLICKHOUSE_CLUSTER,
      dataDir: config.DATA_DIR,
      // A file moves to completed/ once its rows are written: they must outlive a power loss first.
      durableWrites: true,
    });
  } catch (error) {
    const where = config.CLICKHOUSE_URL ? 'CLICKHOUSE_URL' : 'embedded chdb in DATA_DIR: stop `adsvc serve` on this DATA_DIR first';
    throw new CommandError(`cannot open ClickHouse (${where}): ${(error as Error).message}`);
  }
  try {
    console.log(JSON.stringify(await completeQuarantinedWrites(ch, quarantineDirectory, args.map((file) => path.basename(file))), null, 2));
    return 0;
  } catch (error) {
    if (error instanceof QuarantinedWriteError) throw new CommandError(error.message);
    throw error;
  } finally {
    await ch.close();
  }
}
