import { z } from 'zod';
import { ids, optionalSecret } from '../config/schema_parts.js';

/** The longest custom status Discord shows. */
const DISCORD_STATUS_MAX_CHARS = 128;

/** `discord.shards` given as a mapping: the shard ids this process runs, of how many in all. */
const shardSplit = z
  .strictObject({
    ids: z.array(z.int().min(0, 'a shard id is 0 or more')).describe('The shard ids this process runs; each below `count`.'),
    count: z.int().min(1, 'a bot has at least 1 shard').describe('How many shards the bot has in all, across every process that runs it.'),
  })
  .superRefine((split, context) => {
    if (split.ids.length === 0) context.addIssue({ code: 'custom', path: ['ids'], message: 'list at least one shard id' });
    split.ids.forEach((id, index) => {
      if (split.ids.indexOf(id) !== index) context.addIssue({ code: 'custom', path: ['ids', index], message: `shard ${id} is listed twice` });
      else if (split.count >= 1 && id >= split.count)
        context.addIssue({ code: 'custom', path: ['ids', index], message: `shard ${id} is not below count (${split.count}): shard ids run from 0 to ${split.count - 1}` });
    });
  });

/** The `discord` section. */
export const discordSection = z
  .strictObject({
    token: optionalSecret.describe('The bot token, usually `${DISCORD_TOKEN}`. When it is absent or empty the bot runs in the terminal instead.'),
    api_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('The REST API root, for proxies and tests; Discord’s own by default.'),
    channels: ids('Channels where every message is for the bot, without a mention'),
    guild_ids: ids('Servers to register the slash commands in (instantly); empty registers them globally'),
    shards: z
      .union([z.literal('auto'), shardSplit])
      .optional()
      .describe(
        'Which of the bot’s Discord shards this process runs. Absent: one process is the whole bot (one shard). ' +
          '`auto`: this process runs every shard, as many as Discord recommends. `{ ids: [0, 1], count: 4 }`: this ' +
          'process runs those shards of 4, and other processes on the same PostgreSQL store run the rest; it answers ' +
          'only in the servers its shards own (direct messages belong to shard 0).',
      ),
    edit_interval_ms: z.int().positive().default(1500).describe('How often a streamed reply is edited, at most, in milliseconds.'),
    requests_per_second: z
      .int()
      .positive()
      .default(50)
      .describe(
        'The most REST requests a second the bot makes to Discord, all channels together: Discord’s global limit, 50 ' +
          'unless Discord raised it for this bot. Past half of it, the typing indicator is left out, so that replies get ' +
          'the requests.',
      ),
    delivery_backoff_seconds: z
      .number()
      .positive()
      .default(1)
      .describe('The first wait before posting a final reply again after Discord failed to take it (a 5xx answer or a lost connection); each further wait doubles, up to 30 seconds.'),
    delivery_deadline_seconds: z.number().positive().default(600).describe('How long the bot keeps trying to post a final reply; a reply not posted by then is posted after the next start.'),
    max_attachment_mb: z
      .number()
      .positive()
      .default(8)
      .describe('The largest image attachment (PNG, JPEG, WebP, GIF) that is downloaded and shown to the model, in megabytes (MiB); a larger one is left out and the model is told so.'),
    max_text_attachment_kb: z
      .number()
      .positive()
      .default(100)
      .describe(
        'The largest text attachment (`.txt`, `.md`, `.json`, `.csv`, source code, …) whose content is given to the model, in kilobytes (KiB); a larger one is left out and the model is told so.',
      ),
    status_message: z
      .string()
      .trim()
      .min(1, 'leave it out for no status')
      .max(DISCORD_STATUS_MAX_CHARS, `Discord shows a status of at most ${DISCORD_STATUS_MAX_CHARS} characters`)
      .optional()
      .describe(
        'The bot’s status beside its name (its custom status), up to 128 characters. While every model of the default route is refused by its breaker ' +
          'the status says `model overloaded — requests are saved` instead, and returns once one admits calls again. Absent: no status but that one.',
      ),
  })
  .describe('The Discord adapter.');

/** The validated section, defaults filled in. */
export type DiscordSettings = z.output<typeof discordSection>;
