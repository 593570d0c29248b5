import type { Config } from './config_schema.js';
import type { CliArgs } from './args.js';
import { assertNever } from '../core/assert_never.js';

/** Which adapter the program runs, and why. */
export type AdapterChoice = { readonly kind: 'discord'; readonly token: string } | { readonly kind: 'console'; readonly mode: 'text' | 'jsonl'; readonly reason: 'requested' | 'no_discord_token' };

/** Discord when a token is configured and the terminal was not asked for; else the console. */
export function chooseAdapter(args: CliArgs, config: Config): AdapterChoice {
  const mode = args.jsonl ? 'jsonl' : 'text';
  if (args.console) return { kind: 'console', mode, reason: 'requested' };
  if (config.discord.token === undefined) return { kind: 'console', mode, reason: 'no_discord_token' };
  return { kind: 'discord', token: config.discord.token };
}

/** A sentence for people: what will run and why. */
export function describeAdapterChoice(choice: AdapterChoice): string {
  switch (choice.kind) {
    case 'discord':
      return 'the Discord adapter (discord.token is configured)';
    case 'console': {
      const what = choice.mode === 'jsonl' ? 'the console adapter in JSON-lines mode' : 'the console adapter';
      return choice.reason === 'requested' ? `${what} (asked for on the command line)` : `${what} (no discord.token is configured)`;
    }
    default:
      return assertNever(choice);
  }
}
