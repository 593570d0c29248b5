import { Client, Events, GatewayIntentBits, Partials, type Message } from 'discord.js';
import type { FaultInjector } from '../chat/fault_points.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { discordSink } from '../discord/discord_sink.js';
import { discordMessageSource } from '../discord/discord_source.js';
import { commandAsMessage, registerSlashCommands } from '../discord/slash_commands.js';
import { addressesBot, withoutBotMention } from '../discord/triggers.js';
import { intakeFor, type BotServices } from './bot_services.js';
import { announceInterrupted, type SignalSource } from './run_console.js';

export interface DiscordRun {
  readonly config: Config;
  readonly token: string;
  readonly services: BotServices;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly signals: SignalSource | undefined;
  readonly faults: FaultInjector;
}

/** Logging in to Discord failed (a refused token, an unreachable API): the program exits 2, like any other configuration problem. */
export class DiscordLoginError extends Error {
  override readonly name = 'DiscordLoginError';
}

/**
 * Runs the bot on Discord until SIGINT or SIGTERM: messages that address the bot go through the
 * same intake pipeline as the console; on a signal, intake stops and running turns are suspended
 * with their work kept.
 * @throws {DiscordLoginError} when Discord refuses the token.
 */
export async function runDiscord(run: DiscordRun): Promise<void> {
  const { config, services, clock, logger } = run;
  // Listen for the signals first, so that a stop that comes the moment the bot is up is not missed.
  const stopped = new Promise<void>((resolve) => {
    run.signals?.once('SIGINT', resolve);
    run.signals?.once('SIGTERM', resolve);
  });
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
    partials: [Partials.Channel],
    ...(config.discord.api_url === undefined ? {} : { rest: { api: config.discord.api_url } }),
  });
  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
  try {
    await client.login(run.token);
  } catch (error) {
    await client.destroy();
    throw new DiscordLoginError(`could not log in to Discord with discord.token${config.discord.api_url === undefined ? "" : ` at ${config.discord.api_url}`}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const bot = await ready;
  const sink = discordSink({ client: bot, clock, logger: logger.child({ component: 'discord' }), editIntervalMs: config.discord.edit_interval_ms });
  const intake = intakeFor(config, services, { clock, logger, sink, source: discordMessageSource(bot), faults: run.faults });
  client.on(Events.MessageCreate, (message: Message) => {
    const view = {
      authorId: message.author.id,
      authorIsBot: message.author.bot,
      channelId: message.channelId,
      parentChannelId: message.channel.isThread() ? (message.channel.parentId ?? undefined) : undefined,
      isDirectMessage: message.guildId === null,
      mentionsBot: message.mentions.users.has(bot.user.id),
      repliesToBot: message.mentions.repliedUser?.id === bot.user.id,
    };
    if (!addressesBot(view, bot.user.id, config.discord.channels)) return;
    intake.submit({
      source: 'discord',
      channelId: message.channelId,
      authorId: message.author.id,
      authorRoleIds: message.member?.roles.cache.map((role) => role.id) ?? [],
      messageId: message.id,
      text: withoutBotMention(message.content, bot.user.id),
    });
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isChatInputCommand()) return;
    commandAsMessage(interaction).then(
      (message) => message !== undefined && intake.submit(message),
      (error: unknown) => logger.error({ err: error }, 'could not answer a slash command'),
    );
  });
  await registerSlashCommands(bot, config.discord.guild_ids);
  logger.info({ user: bot.user.tag }, 'connected to Discord');
  announceInterrupted(services, sink);
  await stopped;
  logger.info('shutting down: running turns are suspended with their work kept');
  await intake.shutdown();
  await client.destroy();
}
