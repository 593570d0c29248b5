import { z } from 'zod';
import { approvalDefaults, isConfiguredToolName } from '../tools/tools_settings.js';
import { overrideLimitsSchema } from './limits_settings.js';
import { PLACEHOLDERS_DESCRIPTION, promptSchema } from './prompt_placeholders.js';

/** A list of Discord ids that, when given, names at least one. */
const someIds = (what: string) =>
  z
    .array(z.string().min(1))
    .refine((list) => list.length > 0, 'list at least one id, or leave the key out')
    .optional()
    .describe(`${what} (Discord ids are strings: quote them in YAML).`);

const matchSchema = z
  .strictObject({
    guild_ids: someIds('The servers the entry applies in'),
    channel_ids: someIds('The channels the entry applies in, with their threads'),
    category_ids: someIds('The categories whose channels (and their threads) the entry applies in'),
  })
  .refine((match) => match.guild_ids !== undefined || match.channel_ids !== undefined || match.category_ids !== undefined, 'name at least one of guild_ids, channel_ids, category_ids')
  .describe('Where the entry applies: every key given must hold. A thread counts as its channel, and a channel’s category is the one it is filed under.');

const overrideSchema = z
  .strictObject({
    name: z.string().min(1).optional().describe('What /status calls the entry, e.g. "support channels".'),
    match: matchSchema,
    system_prompt: promptSchema.min(1).optional().describe(`The system prompt of turns here, instead of \`chat.system_prompt\`. ${PLACEHOLDERS_DESCRIPTION}`),
    tools: z.array(z.string().min(1)).optional().describe('The only tools offered here, by name (each must be a configured tool); permissions still apply. Every tool when absent; none when empty.'),
    max_iterations: z.int().positive().optional().describe('The most model calls one turn here may make, instead of `chat.max_iterations`.'),
    approval_defaults: approvalDefaults
      .partial()
      .optional()
      .describe('Whether calls here wait for a person’s approval, per effect class, instead of `tools.approval_defaults` (a class left out keeps that default).'),
    models: z
      .array(z.string().min(1))
      .refine((list) => list.length > 0, 'list at least one model, or leave the key out')
      .optional()
      .describe('The only models turns here may use, by name (`llm.model` or a fallback’s `model`), in the order they are tried. Every configured model, primary first, when absent.'),
    limits: overrideLimitsSchema.optional(),
  })
  .describe('The settings of turns in some servers, categories or channels.');

/** The `overrides` section. */
export const overridesSection = z
  .array(overrideSchema)
  .default([])
  .describe(
    'Settings for some servers, categories or channels: the first entry that matches where a message was said ' +
      'gives its turn a system prompt, a set of tools, a cap on model calls and the models to use; what an entry ' +
      'leaves out comes from `chat`, `tools` and `llm`. A resumed turn keeps the prompt and cap it started with and ' +
      'is offered the tools and models of the entry that matches now.',
  );

/** One validated entry. */
export type OverrideSettings = z.output<typeof overrideSchema>;

/** Where a tool or model name of an entry does not name a configured one, and how to say so. */
export interface UnknownOverrideName {
  /** The path below `overrides`: `[entry, 'tools' | 'models', index]`. */
  readonly path: readonly [number, 'tools' | 'models', number];
  readonly message: string;
}

/** Every tool an entry names that is none of `configured`. */
export function unknownOverrideTools(overrides: readonly OverrideSettings[], configured: readonly string[]): UnknownOverrideName[] {
  const known = configured.length === 0 ? 'no tools are configured' : `the configured tools are ${configured.join(', ')}`;
  return overrides.flatMap((override, entry) =>
    (override.tools ?? []).flatMap((name, index) =>
      isConfiguredToolName(name, configured) ? [] : [{ path: [entry, 'tools', index] as const, message: `no tool is called ${JSON.stringify(name)}: ${known}` }],
    ),
  );
}

/** Every model an entry names that is none of `configured` (`llm.model` and the fallbacks' names). */
export function unknownOverrideModels(overrides: readonly OverrideSettings[], configured: readonly string[]): UnknownOverrideName[] {
  const known = configured.length === 0 ? 'no model is configured' : `the configured models are ${configured.join(', ')}`;
  return overrides.flatMap((override, entry) =>
    (override.models ?? []).flatMap((name, index) => (configured.includes(name) ? [] : [{ path: [entry, 'models', index] as const, message: `no model is called ${JSON.stringify(name)}: ${known}` }])),
  );
}
