import { parseArgs, type ParseArgsConfig } from 'node:util';

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
 * Parses `argv` against `specs` (keyed by the option's name with its dashes, e.g. `--json`; a
 * one-letter name such as `-h` is a flag) with `node:util` `parseArgs`; never throws. After `--`
 * every argument is positional.
 */
export function parseOptions(argv: readonly string[], specs: Readonly<Record<string, OptionSpec>>): OptionsResult {
  const flags = new Set<string>();
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  // Not strict: every token comes back, and each problem gets the message the commands have always given.
  const { tokens } = parseArgs({ args: [...argv], options: parseArgsOptions(specs), strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    const name = token.rawName;
    const spec = specs[name];
    if (spec === undefined) return { ok: false, error: `unknown option '${name}'` };
    const seen = spec.kind === 'flag' ? flags.has(name) : values.has(name);
    if (seen && spec.repeatable !== true) return { ok: false, error: `${name} is given more than once` };
    if (spec.kind === 'flag') {
      if (token.value !== undefined) return { ok: false, error: `${name} takes no value` };
      flags.add(name);
      continue;
    }
    const value = token.value;
    if (value === undefined || value === '' || (!token.inlineValue && spec.text !== true && value.startsWith('-'))) return { ok: false, error: `${name} needs a value` };
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return { ok: true, options: { flags, values, positionals } };
}

/** What `parseArgs` must know of `specs`: which long options take the next argument as their value. */
function parseArgsOptions(specs: Readonly<Record<string, OptionSpec>>): ParseArgsConfig['options'] {
  const long = Object.entries(specs).filter(([name]) => name.startsWith('--'));
  return Object.fromEntries(long.map(([name, spec]) => [name.slice(2), { type: spec.kind === 'value' ? 'string' : 'boolean' }] as const));
}

/** The one value of option `name`, if it was given. */
export function valueOf(options: ParsedOptions, name: string): string | undefined {
  return options.values.get(name)?.[0];
}
