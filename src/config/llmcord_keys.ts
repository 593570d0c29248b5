import { formatKeyPath, type KeyPath } from './problems.js';

/**
 * The settings of llmcord's config.yaml, each with the Holdfast setting that takes its place: a
 * configuration brought over from llmcord is answered key by key with what to write instead,
 * not just "unknown key".
 */
const LLMCORD_KEYS: Readonly<Record<string, string>> = {
  bot_token: 'Holdfast reads the token from `discord.token` (usually `token: ${DISCORD_TOKEN}`)',
  client_id: 'Holdfast needs no client id: it logs the invite URL at start, from the token — delete this key',
  status_message: 'Holdfast reads it from `discord.status_message`',
  max_text: 'Holdfast limits a message with `chat.max_message_chars` and a text attachment with `discord.max_text_attachment_kb`',
  max_images: 'Holdfast sends every image attachment up to `discord.max_attachment_mb` when `llm.vision` is true — delete this key',
  max_messages: 'Holdfast sends a channel’s history up to `chat.history_max_chars` characters, older messages dropped or summarised (`chat.compaction`)',
  use_plain_responses: 'Holdfast always answers in plain messages — delete this key',
  allow_dms: 'Holdfast reads it from `access.allow_dms`',
  'permissions.users': 'Holdfast reads `allowed_ids` and `blocked_ids` from `access.users.allow` and `access.users.deny`, and `admin_ids` from `permissions.admins`',
  'permissions.roles': 'Holdfast reads `allowed_ids` and `blocked_ids` from `access.roles.allow` and `access.roles.deny`',
  'permissions.channels': 'Holdfast reads `allowed_ids` and `blocked_ids` from `access.channels.allow` and `access.channels.deny`',
  providers: 'Holdfast takes one model in `llm` (`provider`, `base_url`, `api_key`) and more in `llm.fallbacks`',
  models: 'Holdfast names the model in `llm.model`, and the next ones in `llm.fallbacks` (each with its `model`)',
  system_prompt: 'Holdfast reads it from `chat.system_prompt`',
};

/** What Holdfast takes instead of an llmcord setting; `undefined` for a key llmcord does not have. */
export function llmcordKeyExplanation(path: KeyPath): string | undefined {
  const explanation = LLMCORD_KEYS[formatKeyPath(path)];
  return explanation === undefined ? undefined : `an llmcord setting: ${explanation}`;
}
