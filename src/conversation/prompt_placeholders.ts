import { z } from 'zod';
import type { MessageNames } from './transport.js';

/** The placeholders a system prompt may hold (`chat.system_prompt`, an override's `system_prompt`), filled when a turn is admitted. */
const PROMPT_PLACEHOLDERS = ['date', 'time', 'server', 'channel', 'user'] as const;
type PromptPlaceholder = (typeof PROMPT_PLACEHOLDERS)[number];

/**
 * A placeholder is `{name}`, the name made of lowercase letters and underscores; `{{name}` is the
 * text `{name}`. Every other brace is text as written, so a JSON example such as `{"a": 1}` stays.
 */
const PLACEHOLDER = /\{(\{?)([a-z_]+)\}/g;

/** The most characters of one name a prompt takes: a name is text its owner chose. */
const MAX_NAME_CHARS = 100;

const KNOWN = PROMPT_PLACEHOLDERS.map((name) => `{${name}}`).join(', ');

/** What the configuration schema says of a prompt's placeholders. */
export const PLACEHOLDERS_DESCRIPTION =
  `Filled when a turn starts: ${KNOWN} (the UTC date, the UTC time as \`2026-12-03T14:05:30Z\`, ` +
  'and the names of the server, the channel and the requester: on the console `console`, `console`, `console-user`). ' +
  '`{{name}` writes `{name}`; any other brace is text as written.';

const isPlaceholder = (name: string): name is PromptPlaceholder => (PROMPT_PLACEHOLDERS as readonly string[]).includes(name);

/** The names of the placeholders `prompt` holds that are none of {@link PROMPT_PLACEHOLDERS}, each once, in order. */
function unknownPlaceholders(prompt: string): string[] {
  const unknown = [...prompt.matchAll(PLACEHOLDER)].flatMap(([, escaped, name = '']) => (escaped === '' && !isPlaceholder(name) ? [name] : []));
  return [...new Set(unknown)];
}

/** A system prompt in the configuration: a placeholder it holds must be one of {@link PROMPT_PLACEHOLDERS}, else the key is refused at start, naming it. */
export const promptSchema = z.string().superRefine((prompt, context) => {
  for (const name of unknownPlaceholders(prompt)) {
    context.addIssue({ code: 'custom', message: `unknown placeholder {${name}}: a prompt may hold ${KNOWN} (write {{${name}} for the text {${name}})` });
  }
});

/** What a turn's prompt is filled from: the Clock's `now()` at its admission, and how the transport names the message's place and author (nothing when it did not say). */
export interface PromptFilling {
  readonly now: number;
  readonly names: MessageNames | undefined;
}

/**
 * `prompt` with its placeholders filled: `{date}` the UTC date (`2026-12-03`), `{time}` the UTC
 * instant to the second (`2026-12-03T14:05:30Z`), `{server}`, `{channel}` and `{user}` the
 * transport's names, each on one line and at most {@link MAX_NAME_CHARS} characters (empty when
 * it gave none). A filled-in value is not read for placeholders again.
 */
export function filledPrompt(prompt: string, filling: PromptFilling): string {
  const instant = new Date(filling.now).toISOString();
  const { names } = filling;
  const values: Readonly<Record<PromptPlaceholder, string>> = {
    date: instant.slice(0, 10),
    time: `${instant.slice(0, 19)}Z`,
    server: nameOnOneLine(names?.server),
    channel: nameOnOneLine(names?.channel),
    user: nameOnOneLine(names?.user),
  };
  return prompt.replace(PLACEHOLDER, (whole, escaped: string, name: string) => (escaped !== '' ? whole.slice(1) : isPlaceholder(name) ? values[name] : whole));
}

/**
 * A name as the model is given it, in a prompt or as a message's author: one line of at most
 * {@link MAX_NAME_CHARS} characters, line breaks and other control characters become spaces,
 * trimmed; empty when there is none.
 */
export function nameOnOneLine(name: string | undefined): string {
  const flat = (name ?? '').replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
  return [...flat].slice(0, MAX_NAME_CHARS).join('');
}
