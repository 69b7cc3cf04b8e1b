import { ConfigError, loadConfig } from './config.js';
import { StartupError, openStores } from './runtime.js';
import { serve } from './server.js';
import { readAdminTokenFile } from './secrets.js';
import { adminCommands, CommandError } from './cli/adminCommands.js';
import { sendAdminCommand } from './cli/adminRequest.js';
import { parseCommandLine } from './cli/commandLine.js';
import { completeQuarantine, completeQuarantineUsage } from './cli/quarantineCommand.js';

const usage = `usage:
  adsvc serve                 start the service (runs migrations first)
  adsvc migrate               apply database migrations and exit
  ${completeQuarantineUsage}
                              store, exactly once, a write ClickHouse refused (DATA_DIR/quarantine),
                              after its cause is fixed; embedded chdb: stop the service first
  ${Object.values(adminCommands)
    .map((command) => command.usage)
    .join('\n  ')}

admin commands talk to a running server: --url (default $ADSVC_URL or http://127.0.0.1:$PORT)
and --token (default $ADSVC_ADMIN_TOKEN, $ADMIN_TOKEN or the file DATA_DIR/admin-token).
Configuration comes from the environment; see docs/configuration.md.`;

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { positionals, flags, help } = parseCommandLine(argv);
  const [noun, verb, ...rest] = positionals;
  if (!noun || noun === 'help' || help) {
    console.log(usage);
    // Asked for (`help`, `--help`) is a success; a bare `adsvc` is a mistake a script should see.
    return noun || help ? 0 : 1;
  }
  const config = loadConfig(env);
  if (noun === 'serve') {
    await serve(config);
    return -1;
  }
  if (noun === 'migrate') {
    const stores = await openStores(config);
    await stores.close();
    console.log('migrations are up to date');
    return 0;
  }
  if (noun === 'quarantine' && verb === 'complete') return completeQuarantine(config, rest);
  const command = adminCommands[`${noun} ${verb ?? ''}`];
  if (!command) {
    console.error(`unknown command: ${positionals.join(' ')}\n\n${usage}`);
    return 1;
  }
  const baseUrl = (flags.url ?? config.ADSVC_URL ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
  const commandPath = command.path(flags, rest);
  const body = command.body?.(flags);
  let token: string;
  try {
    token = flags.token ?? config.ADSVC_ADMIN_TOKEN ?? config.ADMIN_TOKEN ?? readAdminTokenFile(config);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const { statusCode, text } = await sendAdminCommand(baseUrl, token, command, commandPath, body);
  if (text) console.log(text.startsWith('{') ? JSON.stringify(JSON.parse(text), null, 2) : text);
  return statusCode < 400 ? 0 : 1;
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    const known = error instanceof ConfigError || error instanceof StartupError || error instanceof CommandError;
    console.error(`adsvc: ${(error as Error).message}`);
    if (!known) console.error((error as Error).stack);
    process.exit(1);
  },
);
