import { parseArgs } from 'node:util';
import { adminCommands, CommandError, type Flags } from './adminCommands.js';

export interface CommandLine {
  positionals: string[];
  flags: Flags;
  help: boolean;
}

/** What every admin command takes besides its own flags (main.ts's usage says so). */
const CONNECTION_FLAGS = ['url', 'token'];

/**
 * The words and flags of `adsvc ...`, each command taking only the flags it declares: those of an
 * admin command are the ones its usage names (`--name NAME` takes a value, a bare `--flag` none),
 * so a command added to the table declares its flags by documenting them. An unknown flag, or a
 * value flag given no value, is a CommandError (one line, exit 1, nothing sent): a typo in an
 * optional flag (`--reson`) must not drop the operator's reason, nor `serve -h` start the service.
 */
export function parseCommandLine(argv: string[]): CommandLine {
  // The command is the leading words (`serve`, `placement create`): its flags are known before they are read.
  const [first, second] = argv;
  const word = (arg: string | undefined) => arg !== undefined && !arg.startsWith('-');
  const name = !word(first) ? '' : word(second) ? `${first} ${second}` : first!;
  const command = adminCommands[name];
  const valueFlags = command ? [...CONNECTION_FLAGS, ...flagsOf(command.usage, true)] : [];
  const booleanFlags = command ? flagsOf(command.usage, false) : [];
  const options = {
    help: { type: 'boolean' as const, short: 'h' },
    ...Object.fromEntries(valueFlags.map((flag) => [flag, { type: 'string' as const }])),
    ...Object.fromEntries(booleanFlags.map((flag) => [flag, { type: 'boolean' as const }])),
  };
  try {
    const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
    const { help, ...flags } = values;
    return { positionals, flags: flags as Flags, help: help === true };
  } catch (error) {
    throw new CommandError(refusal(error as NodeJS.ErrnoException, name || 'adsvc', [...valueFlags, ...booleanFlags]));
  }
}

/** The flags a usage line names: `--flag VALUE` (or `[--flag VALUE]`) takes a value, a bare `--flag` none. */
function flagsOf(usage: string, takingValue: boolean): string[] {
  return [...usage.matchAll(/--([a-z][a-z-]*)( [^\s[\]-][^\s\]]*)?/g)].filter((match) => (match[2] !== undefined) === takingValue).map((match) => match[1]!);
}

function refusal(error: NodeJS.ErrnoException, command: string, flags: string[]): string {
  const flag = /'(-[^' ]+)/.exec(error.message)?.[1] ?? '';
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return `unknown flag ${flag} for "${command}" (flags: ${[...flags, 'help'].map((name) => `--${name}`).join(', ')})`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /argument missing|ambiguous/.test(error.message) ? `${flag} needs a value` : `${flag} takes no value`;
  }
  return error.message;
}
