import { parseArgs } from 'node:util';

/** What the command line asked for. */
export interface CliArgs {
  readonly configPath?: string;
  /** Run in the terminal even when a Discord token is configured. */
  readonly console: boolean;
  /** Run in the terminal speaking JSON lines on stdin/stdout (implies `console`). */
  readonly jsonl: boolean;
  readonly help: boolean;
  readonly version: boolean;
}

export type ParsedArgs = { readonly ok: true; readonly args: CliArgs } | { readonly ok: false; readonly error: string };

export const USAGE = `Usage: holdfast [options]
       holdfast turns list|show|resolve|approve|deny ...
                                              inspect saved turns, give verdicts on uncertain
                                              calls, answer calls that wait for approval
       holdfast usage [--by user|channel|server|model|day] [--since 7d] [--json]
                                              what the bot spent: turns, tokens, cost
       holdfast doctor                        check the configuration and the store
       holdfast backup PATH                   copy the store while the bot runs
       holdfast migrate --to postgres         copy a stopped bot's store into PostgreSQL
       holdfast web                           serve the web console without the bot

Runs the Holdfast chat bot: on Discord when discord.token is configured, else in this terminal.
The operator commands work beside the running bot; each takes --config PATH (before or after
its name) and --help.

Options:
  --config PATH   the configuration file (default: $HOLDFAST_CONFIG, else ./config.yml if it exists)
  --console       run in the terminal even when a Discord token is configured
  --jsonl         run in the terminal speaking JSON lines on stdin and stdout (implies --console)
  -h, --help      print this help and exit
  -v, --version   print the version and exit

Exit status of the bot: 0 when it stopped (its input ended, SIGINT, SIGTERM); 1 on a runtime
failure, or when Discord or its PostgreSQL store stayed out of reach for startup_timeout_seconds
(start it again later); 2 for what a person must fix: bad arguments or configuration, a token or
shard Discord refuses, a database that refuses the user, password or database name, a store file
another bot process holds, a metrics or web console address in use (do not restart it until then).
The operator commands exit 0 on success, 1 on a runtime failure, 2 for bad arguments or
configuration, 3 for a turn or call that does not exist, a verdict or approval not allowed or a
migration refused; doctor 1 when something needs attention.
`;

type Flag = 'console' | 'jsonl' | 'help' | 'version';

/** The options `parseArgs` knows; `config` is read by hand from its tokens, so that its own messages stay. */
const OPTIONS = {
  config: { type: 'string' },
  console: { type: 'boolean' },
  jsonl: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

const FLAGS: ReadonlySet<string> = new Set<Flag>(['console', 'jsonl', 'help', 'version']);

function isFlag(name: string): name is Flag {
  return FLAGS.has(name);
}

/** Parses `argv` (without the node and script paths) with `node:util` `parseArgs`; never throws. */
export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  const flags: Record<Flag, boolean> = { console: false, jsonl: false, help: false, version: false };
  let configPath: string | undefined;
  // Not strict: every token comes back, and each problem gets the message this program has always given.
  const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') return { ok: false, error: `unexpected argument '${token.value}'` };
    if (token.name === 'config') {
      if (configPath !== undefined) return { ok: false, error: '--config is given more than once' };
      const value = token.value;
      if (value === undefined || value === '' || (!token.inlineValue && value.startsWith('-'))) return { ok: false, error: '--config needs a file path' };
      configPath = value;
      continue;
    }
    if (!isFlag(token.name)) return { ok: false, error: `unknown option '${token.rawName}'` };
    if (token.value !== undefined) return { ok: false, error: `${token.rawName} takes no value` };
    flags[token.name] = true;
  }
  const args: CliArgs = { ...flags, console: flags.console || flags.jsonl, ...(configPath === undefined ? {} : { configPath }) };
  return { ok: true, args };
}
