import { z } from 'zod';
import type { PermissionsSettings } from '../tools/permissions_settings.js';
import type { ToolsSettings } from '../tools/tools_settings.js';
import type { OverrideSettings } from './overrides_settings.js';
import type { LimitsSettings } from './limits_settings.js';
import type { ModelPrice } from '../llm/llm_settings.js';
import type { TurnStateSettings } from '../turn_state/turn_state_settings.js';
import { PLACEHOLDERS_DESCRIPTION, promptSchema } from './prompt_placeholders.js';

/** The `chat` section. */
export const chatSection = z
  .strictObject({
    system_prompt: promptSchema
      .default('You are Holdfast, a helpful assistant in a Discord server. Answer concisely. Use tools when they help, and say plainly when a tool failed.')
      .describe(`The system prompt of every turn. ${PLACEHOLDERS_DESCRIPTION}`),
    max_iterations: z.int().positive().default(20).describe('The most model calls one turn may make.'),
    max_tool_calls: z.int().nonnegative().default(30).describe('The most tool calls one turn may run; calls beyond it are refused, never run.'),
    max_continuations: z.int().nonnegative().default(2).describe('How many times a reply cut off by the token limit is continued.'),
    max_message_chars: z.int().positive().default(32_000).describe('The longest message, in characters, the bot takes; a longer one is answered "rejected" and neither kept nor sent to the model.'),
    max_queued_per_channel: z.int().nonnegative().default(5).describe('How many messages may wait for a channel’s running turn; more are answered "busy".'),
    history_max_chars: z
      .int()
      .positive()
      .default(24_000)
      .describe('How much of a channel’s history, in characters, goes with each request (an attached text file counts its characters, an image 1,000); older messages are dropped or summarised.'),
    show_reasoning: z
      .enum(['hidden', 'summary'])
      .default('hidden')
      .describe(
        'The model’s reasoning (`<think>` blocks, or reasoning a provider streams apart) is never shown as the answer. ' +
          '`hidden`: nothing of it is shown; `summary`: on Discord a line such as `-# thought for 12 s` goes under the reply.',
      ),
    compaction: z
      .enum(['drop', 'summarize'])
      .default('drop')
      .describe('`drop`: history beyond the budget is dropped, oldest first; `summarize`: it is summarised once by the model, after the reply and without holding up the channel.'),
  })
  .describe('The turn engine: the system prompt and the budgets of one turn.');

/** The validated section, defaults filled in. */
export type ChatSettings = z.output<typeof chatSection>;

/** The sections the conversation reads: its own and the overrides, the store's clocks, who may do what, whether the model sees images, how a fallback's reply is marked, the prices and the limits. */
export interface ConversationSettings {
  readonly chat: ChatSettings;
  readonly overrides: readonly OverrideSettings[];
  readonly turn_state: TurnStateSettings;
  readonly permissions: PermissionsSettings;
  /** The models' prices per million tokens, by model name: what turns a call's tokens into cost (DESIGN §10.1). */
  readonly llm: { readonly vision: boolean; readonly fallback_note: string; readonly prices: Readonly<Record<string, ModelPrice>> };
  /** What turns may spend (DESIGN §10.1). */
  readonly limits: LimitsSettings;
  /** When calls wait for a person's approval, who may give it and for how long (DESIGN §9.2). */
  readonly tools: Pick<ToolsSettings, 'approval_defaults' | 'approvers' | 'approval_timeout_minutes'>;
}
