import { z } from 'zod';
import { ids, optionalSecret } from '../config/schema_parts.js';

/** The `discord` section. */
export const discordSection = z
  .strictObject({
    token: optionalSecret.describe(
      'The bot token, usually `${DISCORD_TOKEN}`. When it is absent or empty the bot runs in the terminal instead.',
    ),
    api_url: z.url({ protocol: /^https?$/ }).optional().describe('The REST API root, for proxies and tests; Discord’s own by default.'),
    channels: ids('Channels where every message is for the bot, without a mention'),
    guild_ids: ids('Servers to register the slash commands in (instantly); empty registers them globally'),
    edit_interval_ms: z.int().positive().default(1500).describe('How often a streamed reply is edited, at most, in milliseconds.'),
    delivery_backoff_seconds: z
      .number()
      .positive()
      .default(1)
      .describe('The first wait before posting a final reply again after Discord failed to take it (a 5xx answer or a lost connection); each further wait doubles, up to 30 seconds.'),
    delivery_deadline_seconds: z
      .number()
      .positive()
      .default(600)
      .describe('How long the bot keeps trying to post a final reply; a reply not posted by then is posted after the next start.'),
    max_attachment_mb: z
      .number()
      .positive()
      .default(8)
      .describe('The largest image attachment (PNG, JPEG, WebP, GIF) that is downloaded and shown to the model, in megabytes (MiB); a larger one is left out and the model is told so.'),
    max_text_attachment_kb: z
      .number()
      .positive()
      .default(100)
      .describe('The largest text attachment (`.txt`, `.md`, `.json`, `.csv`, source code, …) whose content is given to the model, in kilobytes (KiB); a larger one is left out and the model is told so.'),
  })
  .describe('The Discord adapter.');

/** The validated section, defaults filled in. */
export type DiscordSettings = z.output<typeof discordSection>;
