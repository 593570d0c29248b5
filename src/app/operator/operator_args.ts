import type { ApprovalVerdict } from '../../turn_state/ledger_types.js';
import { TURN_STATUSES, type TurnStatus } from '../../turn_state/turn_types.js';
import { USAGE_GROUPINGS, type UsageGrouping, type UsagePeriod } from '../../turn_state/usage_store.js';
import { parseOptions, valueOf, type OptionSpec, type ParsedOptions } from './option_parser.js';
import { OPERATOR_USAGE, type UsageTopic } from './operator_usage.js';

/** The operator commands, each as its command line asked for it. */
export type OperatorCommand =
  | { readonly kind: 'turns_list'; readonly configPath?: string; readonly statuses?: readonly TurnStatus[]; readonly channel?: string; readonly json: boolean }
  | { readonly kind: 'turns_show'; readonly configPath?: string; readonly turn: string; readonly json: boolean }
  | {
      readonly kind: 'turns_resolve';
      readonly configPath?: string;
      readonly turn: string;
      readonly call: string;
      readonly verdict: 'applied' | 'not_applied';
      readonly text: string | null;
      readonly json: boolean;
    }
  | {
      readonly kind: 'turns_approval';
      readonly configPath?: string;
      readonly turn: string;
      readonly call: string;
      readonly verdict: ApprovalVerdict;
      readonly note: string | null;
      readonly json: boolean;
    }
  | { readonly kind: 'usage'; readonly configPath?: string; readonly period: UsagePeriod; readonly by?: UsageGrouping; readonly json: boolean }
  | { readonly kind: 'doctor'; readonly configPath?: string; readonly json: boolean }
  | { readonly kind: 'backup'; readonly configPath?: string; readonly path: string }
  | { readonly kind: 'migrate'; readonly configPath?: string; readonly to: 'postgres' }
  | { readonly kind: 'web'; readonly configPath?: string };

/** What an operator command line came to: a command to run, a help text to print, or a usage error and the help that goes with it. */
export type OperatorArgs =
  { readonly kind: 'command'; readonly command: OperatorCommand } | { readonly kind: 'help'; readonly text: string } | { readonly kind: 'error'; readonly error: string; readonly topic: UsageTopic };

/** The first words that make the program an operator command instead of the bot. */
export const OPERATOR_COMMANDS = ['turns', 'usage', 'doctor', 'backup', 'migrate', 'web'] as const;

/** Whether `argv` asks for an operator command rather than the bot. */
export function isOperatorCommand(argv: readonly string[]): boolean {
  return OPERATOR_COMMANDS.some((name) => name === argv[0]);
}

/** The subcommands of `turns`: options given before the command go after them. */
const TURNS_SUBCOMMANDS: ReadonlySet<string> = new Set(['list', 'show', 'resolve', 'approve', 'deny']);

/**
 * `argv` with an operator command's options given before its name moved after it, so that
 * `holdfast --config FILE doctor` means `holdfast doctor --config FILE` (and `holdfast --config
 * FILE turns list` means `holdfast turns list --config FILE`). Only options may come before the
 * command, `--config` with its value; anything else leaves `argv` as it is, for the bot's own
 * arguments.
 */
export function commandFirst(argv: readonly string[]): readonly string[] {
  let at = 0;
  for (let token = argv[at]; token !== undefined && token !== '--' && token.startsWith('-'); token = argv[at]) at += token === '--config' ? 2 : 1;
  const command = argv.slice(at);
  if (at === 0 || !isOperatorCommand(command)) return argv;
  const subcommand = command[1];
  const head = command[0] === 'turns' && subcommand !== undefined && TURNS_SUBCOMMANDS.has(subcommand) ? 2 : 1;
  return [...command.slice(0, head), ...argv.slice(0, at), ...command.slice(head)];
}

/** The short names `--status` takes besides the statuses themselves. */
const STATUS_SHORT_NAMES: Readonly<Record<string, TurnStatus>> = {
  completed: 'TERMINAL_COMPLETED',
  failed: 'TERMINAL_FAILED',
  cancelled: 'TERMINAL_CANCELLED',
  rejected: 'TERMINAL_REJECTED',
  expired: 'TERMINAL_EXPIRED',
};

const CONFIG: OptionSpec = { kind: 'value' };
const JSON_FLAG: OptionSpec = { kind: 'flag' };
const HELP: OptionSpec = { kind: 'flag' };
const APPROVAL_SPECS: Readonly<Record<string, OptionSpec>> = { '--note': { kind: 'value', text: true }, '--json': JSON_FLAG };

/** Parses an operator command line (`argv` starts with `turns`, `usage`, `doctor`, `backup`, `migrate` or `web`); never throws. */
export function parseOperatorArgs(argv: readonly string[]): OperatorArgs {
  const [first, second, ...rest] = argv;
  if (first === 'turns') {
    if (second === undefined) return { kind: 'error', error: 'turns needs a subcommand: list, show, resolve, approve or deny', topic: 'turns' };
    if (second === '--help' || second === '-h') return { kind: 'help', text: OPERATOR_USAGE.turns };
    if (second === 'list') return withOptions(rest, 'turns_list', { '--status': { kind: 'value', repeatable: true }, '--channel': { kind: 'value' }, '--json': JSON_FLAG }, turnsList);
    if (second === 'show') return withOptions(rest, 'turns_show', { '--json': JSON_FLAG }, turnsShow);
    if (second === 'resolve') {
      const specs = {
        '--applied': { kind: 'flag' },
        '--not-applied': { kind: 'flag' },
        '--result': { kind: 'value', text: true },
        '--note': { kind: 'value', text: true },
        '--json': JSON_FLAG,
      } as const;
      return withOptions(rest, 'turns_resolve', specs, turnsResolve);
    }
    if (second === 'approve') return withOptions(rest, 'turns_approve', APPROVAL_SPECS, (options, config) => turnsApproval(options, config, 'approved'));
    if (second === 'deny') return withOptions(rest, 'turns_deny', APPROVAL_SPECS, (options, config) => turnsApproval(options, config, 'denied'));
    return { kind: 'error', error: `unknown turns subcommand '${second}' (expected list, show, resolve, approve or deny)`, topic: 'turns' };
  }
  const tail = second === undefined ? rest : [second, ...rest];
  if (first === 'usage') return withOptions(tail, 'usage', { '--by': { kind: 'value' }, '--since': { kind: 'value' }, '--json': JSON_FLAG }, usage);
  if (first === 'doctor') return withOptions(tail, 'doctor', { '--json': JSON_FLAG }, doctor);
  if (first === 'migrate') return withOptions(tail, 'migrate', { '--to': { kind: 'value' } }, migrate);
  if (first === 'web') return withOptions(tail, 'web', {}, web);
  return withOptions(tail, 'backup', {}, backup);
}

type Built = { readonly ok: true; readonly command: OperatorCommand } | { readonly ok: false; readonly error: string };

/** Parses the options of one command (with `--config` and `--help`, which every command takes) and builds it. */
function withOptions(
  argv: readonly string[],
  topic: UsageTopic,
  specs: Readonly<Record<string, OptionSpec>>,
  build: (options: ParsedOptions, configPath: { configPath?: string }) => Built,
): OperatorArgs {
  const parsed = parseOptions(argv, { ...specs, '--config': CONFIG, '--help': HELP, '-h': HELP });
  if (!parsed.ok) return { kind: 'error', error: parsed.error, topic };
  const { options } = parsed;
  if (options.flags.has('--help') || options.flags.has('-h')) return { kind: 'help', text: OPERATOR_USAGE[topic] };
  const configPath = valueOf(options, '--config');
  const built = build(options, configPath === undefined ? {} : { configPath });
  return built.ok ? { kind: 'command', command: built.command } : { kind: 'error', error: built.error, topic };
}

function positionals(options: ParsedOptions, names: readonly string[]): { ok: true; values: string[] } | { ok: false; error: string } {
  const given = options.positionals;
  if (given.length < names.length) return { ok: false, error: `missing ${names.slice(given.length).join(' and ')}` };
  if (given.length > names.length) return { ok: false, error: `unexpected argument '${given[names.length] ?? ''}'` };
  return { ok: true, values: [...given] };
}

function turnsList(options: ParsedOptions, config: { configPath?: string }): Built {
  const none = positionals(options, []);
  if (!none.ok) return none;
  const statuses: TurnStatus[] = [];
  for (const name of (options.values.get('--status') ?? []).flatMap((value) => value.split(',')).map((value) => value.trim())) {
    const status = statusNamed(name);
    if (status === undefined)
      return { ok: false, error: `unknown status '${name}' (expected one of ${[...TURN_STATUSES, ...Object.keys(STATUS_SHORT_NAMES)].map((s) => s.toLowerCase()).join(', ')})` };
    if (!statuses.includes(status)) statuses.push(status);
  }
  const channel = valueOf(options, '--channel');
  return {
    ok: true,
    command: { kind: 'turns_list', ...config, ...(statuses.length === 0 ? {} : { statuses }), ...(channel === undefined ? {} : { channel }), json: options.flags.has('--json') },
  };
}

/** The status `name` means, any case: a status itself, or a terminal status by its short name. */
function statusNamed(name: string): TurnStatus | undefined {
  const lower = name.toLowerCase();
  return TURN_STATUSES.find((status) => status.toLowerCase() === lower) ?? STATUS_SHORT_NAMES[lower];
}

function turnsShow(options: ParsedOptions, config: { configPath?: string }): Built {
  const given = positionals(options, ['TURN']);
  if (!given.ok) return given;
  const [turn = ''] = given.values;
  return { ok: true, command: { kind: 'turns_show', ...config, turn, json: options.flags.has('--json') } };
}

function turnsResolve(options: ParsedOptions, config: { configPath?: string }): Built {
  const given = positionals(options, ['TURN', 'CALL']);
  if (!given.ok) return given;
  const [turn = '', call = ''] = given.values;
  const applied = options.flags.has('--applied');
  const notApplied = options.flags.has('--not-applied');
  if (applied === notApplied) return { ok: false, error: 'give exactly one of --applied and --not-applied' };
  const result = valueOf(options, '--result');
  const note = valueOf(options, '--note');
  if (applied && note !== undefined) return { ok: false, error: '--note goes with --not-applied; with --applied, give --result' };
  if (notApplied && result !== undefined) return { ok: false, error: '--result goes with --applied; with --not-applied, give --note' };
  return {
    ok: true,
    command: { kind: 'turns_resolve', ...config, turn, call, verdict: applied ? 'applied' : 'not_applied', text: (applied ? result : note) ?? null, json: options.flags.has('--json') },
  };
}

function turnsApproval(options: ParsedOptions, config: { configPath?: string }, verdict: ApprovalVerdict): Built {
  const given = positionals(options, ['TURN', 'CALL']);
  if (!given.ok) return given;
  const [turn = '', call = ''] = given.values;
  return { ok: true, command: { kind: 'turns_approval', ...config, turn, call, verdict, note: valueOf(options, '--note') ?? null, json: options.flags.has('--json') } };
}

/** The most days `--since` reaches back: ten years. */
const MAX_SINCE_DAYS = 3660;

function usage(options: ParsedOptions, config: { configPath?: string }): Built {
  const none = positionals(options, []);
  if (!none.ok) return none;
  const since = valueOf(options, '--since') ?? '7d';
  const period = periodNamed(since);
  if (period === undefined) return { ok: false, error: `--since takes Nd (the last N days, today included; N from 1 to ${MAX_SINCE_DAYS}), today or month, not '${since}'` };
  const by = valueOf(options, '--by');
  const grouping = USAGE_GROUPINGS.find((name) => name === by);
  if (by !== undefined && grouping === undefined) return { ok: false, error: `--by takes ${USAGE_GROUPINGS.slice(0, -1).join(', ')} or ${USAGE_GROUPINGS.at(-1) ?? ''}, not '${by}'` };
  return { ok: true, command: { kind: 'usage', ...config, period, ...(grouping === undefined ? {} : { by: grouping }), json: options.flags.has('--json') } };
}

/** The period `--since` names: `today`, `month`, or `Nd` for the last N days. */
function periodNamed(since: string): UsagePeriod | undefined {
  if (since === 'today') return { kind: 'today' };
  if (since === 'month') return { kind: 'month' };
  const days = /^([0-9]{1,4})d$/.exec(since)?.[1];
  if (days === undefined) return undefined;
  const count = Number(days);
  return count >= 1 && count <= MAX_SINCE_DAYS ? { kind: 'days', days: count } : undefined;
}

function doctor(options: ParsedOptions, config: { configPath?: string }): Built {
  const none = positionals(options, []);
  return none.ok ? { ok: true, command: { kind: 'doctor', ...config, json: options.flags.has('--json') } } : none;
}

function web(options: ParsedOptions, config: { configPath?: string }): Built {
  const none = positionals(options, []);
  return none.ok ? { ok: true, command: { kind: 'web', ...config } } : none;
}

function backup(options: ParsedOptions, config: { configPath?: string }): Built {
  const given = positionals(options, ['PATH']);
  if (!given.ok) return given;
  const [path = ''] = given.values;
  return { ok: true, command: { kind: 'backup', ...config, path } };
}

function migrate(options: ParsedOptions, config: { configPath?: string }): Built {
  const none = positionals(options, []);
  if (!none.ok) return none;
  const to = valueOf(options, '--to');
  if (to === undefined) return { ok: false, error: 'migrate needs --to postgres' };
  if (to !== 'postgres') return { ok: false, error: `cannot migrate to '${to}' (expected postgres)` };
  return { ok: true, command: { kind: 'migrate', ...config, to } };
}
