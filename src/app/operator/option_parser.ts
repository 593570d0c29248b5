/** One option an operator command takes. */
export interface OptionSpec {
  /** `flag`: present or not; `value`: takes the next argument (or `--name=VALUE`). */
  readonly kind: 'flag' | 'value';
  /** May be given more than once (its values are collected in order). */
  readonly repeatable?: boolean;
  /**
   * The value is free text, taken whatever it looks like (`--result -5`); any other value may not
   * start with `-`, so that `--config --json` is a missing path rather than a file named `--json`.
   */
  readonly text?: boolean;
}

/** What one command line gave: flags set, the values of each option, and the positional arguments. */
export interface ParsedOptions {
  readonly flags: ReadonlySet<string>;
  readonly values: ReadonlyMap<string, readonly string[]>;
  readonly positionals: readonly string[];
}

export type OptionsResult = { readonly ok: true; readonly options: ParsedOptions } | { readonly ok: false; readonly error: string };

/**
 * Parses `argv` against `specs` (keyed by the option's name with its dashes, e.g. `--json`);
 * never throws. After `--` every argument is positional.
 */
export function parseOptions(argv: readonly string[], specs: Readonly<Record<string, OptionSpec>>): OptionsResult {
  const flags = new Set<string>();
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = arg.startsWith('--') && equals > 0 ? arg.slice(0, equals) : arg;
    const spec = specs[name];
    if (spec === undefined) return { ok: false, error: `unknown option '${name}'` };
    const seen = spec.kind === 'flag' ? flags.has(name) : values.has(name);
    if (seen && spec.repeatable !== true) return { ok: false, error: `${name} is given more than once` };
    if (spec.kind === 'flag') {
      if (name !== arg) return { ok: false, error: `${name} takes no value` };
      flags.add(name);
      continue;
    }
    const value = name === arg ? argv[++i] : arg.slice(equals + 1);
    if (value === undefined || value === '' || (name === arg && spec.text !== true && value.startsWith('-'))) return { ok: false, error: `${name} needs a value` };
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return { ok: true, options: { flags, values, positionals } };
}

/** The one value of option `name`, if it was given. */
export function valueOf(options: ParsedOptions, name: string): string | undefined {
  return options.values.get(name)?.[0];
}
