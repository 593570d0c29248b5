import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

/** An llmcord config.yaml, as its README writes one. */
const LLMCORD_CONFIG = `bot_token: YOUR_BOT_TOKEN
client_id: "123456789012345678"
status_message: Ask me anything

max_text: 100000
max_images: 5
max_messages: 25

use_plain_responses: false
allow_dms: true

permissions:
  users:
    admin_ids: []
    allowed_ids: []
    blocked_ids: []
  roles:
    allowed_ids: []
    blocked_ids: []
  channels:
    allowed_ids: []
    blocked_ids: []

providers:
  openai:
    base_url: https://api.openai.com/v1
    api_key: sk-abc

models:
  openai/gpt-4.1:

system_prompt: You are a snarky Discord chatbot.
`;

describe('a configuration brought over from llmcord', () => {
  it('is answered key by key with the Holdfast setting to use instead', () => {
    expect(configProblems(LLMCORD_CONFIG)).toEqual([
      'c.yml:1:1: bot_token: an llmcord setting: Holdfast reads the token from `discord.token` (usually `token: ${DISCORD_TOKEN}`)',
      'c.yml:2:1: client_id: an llmcord setting: Holdfast needs no client id: it logs the invite URL at start, from the token — delete this key',
      'c.yml:3:1: status_message: an llmcord setting: Holdfast reads it from `discord.status_message`',
      'c.yml:5:1: max_text: an llmcord setting: Holdfast limits a message with `chat.max_message_chars` and a text attachment with `discord.max_text_attachment_kb`',
      'c.yml:6:1: max_images: an llmcord setting: Holdfast sends every image attachment up to `discord.max_attachment_mb` when `llm.vision` is true — delete this key',
      'c.yml:7:1: max_messages: an llmcord setting: Holdfast sends a channel’s history up to `chat.history_max_chars` characters, older messages dropped or summarised (`chat.compaction`)',
      'c.yml:9:1: use_plain_responses: an llmcord setting: Holdfast always answers in plain messages — delete this key',
      'c.yml:10:1: allow_dms: an llmcord setting: Holdfast reads it from `access.allow_dms`',
      'c.yml:13:3: permissions.users: an llmcord setting: Holdfast reads `allowed_ids` and `blocked_ids` from `access.users.allow` and `access.users.deny`, and `admin_ids` from `permissions.admins`',
      'c.yml:17:3: permissions.roles: an llmcord setting: Holdfast reads `allowed_ids` and `blocked_ids` from `access.roles.allow` and `access.roles.deny`',
      'c.yml:20:3: permissions.channels: an llmcord setting: Holdfast reads `allowed_ids` and `blocked_ids` from `access.channels.allow` and `access.channels.deny`',
      'c.yml:24:1: providers: an llmcord setting: Holdfast takes one model in `llm` (`provider`, `base_url`, `api_key`) and more in `llm.fallbacks`',
      'c.yml:29:1: models: an llmcord setting: Holdfast names the model in `llm.model`, and the next ones in `llm.fallbacks` (each with its `model`)',
      'c.yml:32:1: system_prompt: an llmcord setting: Holdfast reads it from `chat.system_prompt`',
    ]);
  });

  it('quotes none of its values, the token included', () => {
    expect(configProblems(LLMCORD_CONFIG).join('\n')).not.toMatch(/YOUR_BOT_TOKEN|sk-abc/);
  });

  it('keeps a Holdfast key of the same name where Holdfast has it', () => {
    const config = parseConfigText('discord:\n  status_message: Ask me anything\nchat:\n  system_prompt: Be brief.\naccess:\n  allow_dms: false\n', 'config.yml', {});
    expect([config.discord.status_message, config.chat.system_prompt, config.access.allow_dms]).toEqual(['Ask me anything', 'Be brief.', false]);
  });
});
