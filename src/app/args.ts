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
       holdfast turns list|show|resolve ...   inspect saved turns, give verdicts on uncertain calls
       holdfast doctor                        check the configuration and the store
       holdfast backup PATH                   copy the store while the bot runs

Runs the Holdfast chat bot: on Discord when discord.token is configured, else in this terminal.
The operator commands work beside the running bot; each takes --config PATH and --help.

Options:
  --config PATH   the configuration file (default: $HOLDFAST_CONFIG, else ./config.yml if it exists)
  --console       run in the terminal even when a Discord token is configured
  --jsonl         run in the terminal speaking JSON lines on stdin and stdout (implies --console)
  -h, --help      print this help and exit
  -v, --version   print the version and exit

Exit status: 0 on success, 1 on a runtime failure, 2 for bad arguments or configuration;
the operator commands also exit 3 for a turn or call that does not exist or a verdict not allowed,
and doctor 1 when something needs attention.
`;

type Flag = 'console' | 'jsonl' | 'help' | 'version';

const FLAGS: ReadonlyMap<string, Flag> = new Map([
  ['--console', 'console'],
  ['--jsonl', 'jsonl'],
  ['--help', 'help'],
  ['-h', 'help'],
  ['--version', 'version'],
  ['-v', 'version'],
]);

/** Parses `argv` (without the node and script paths); never throws. */
export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  const flags: Record<Flag, boolean> = { console: false, jsonl: false, help: false, version: false };
  let configPath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--config' || arg.startsWith('--config=')) {
      if (configPath !== undefined) return { ok: false, error: '--config is given more than once' };
      const value = arg === '--config' ? argv[++i] : arg.slice('--config='.length);
      if (value === undefined || value === '' || (arg === '--config' && value.startsWith('-'))) {
        return { ok: false, error: '--config needs a file path' };
      }
      configPath = value;
      continue;
    }
    const flag = FLAGS.get(arg);
    if (flag === undefined) {
      return { ok: false, error: arg.startsWith('-') ? `unknown option '${arg}'` : `unexpected argument '${arg}'` };
    }
    flags[flag] = true;
  }
  const args: CliArgs = { ...flags, console: flags.console || flags.jsonl, ...(configPath === undefined ? {} : { configPath }) };
  return { ok: true, args };
}
