import { Client, Events, GatewayIntentBits, Partials, type Message } from 'discord.js';
import type { FaultInjector } from '../engine/fault_points.js';
import type { InboundMessage } from '../conversation/transport.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { attachmentSettings, withAttachments } from '../discord/attachments.js';
import { CommandAnswers } from '../discord/command_answers.js';
import { discordSink } from '../discord/discord_sink.js';
import { discordMessageSource } from '../discord/discord_source.js';
import { InOrder } from '../discord/in_order.js';
import { commandAsMessage, registerSlashCommands } from '../discord/slash_commands.js';
import { addressesBot, withoutBotMention } from '../discord/mention_policy.js';
import { intakeFor, type BotServices } from './bot_services.js';
import { keepHouse } from './housekeeping.js';
import { catchUpAfterRestart } from './restart_catch_up.js';
import type { SignalSource } from './run_console.js';

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
  // Ends the waits of deliveries, downloads and housekeeping at shutdown; an unfinished delivery is posted after the next start.
  const stopping = new AbortController();
  const commands = new CommandAnswers(clock);
  const sink = discordSink({
    client: bot,
    clock,
    logger: logger.child({ component: 'discord' }),
    editIntervalMs: config.discord.edit_interval_ms,
    delivery: { clock, backoffMs: config.discord.delivery_backoff_seconds * 1000, deadlineMs: config.discord.delivery_deadline_seconds * 1000, signal: stopping.signal },
    commands,
  });
  const intake = intakeFor(config, services, { clock, logger, sink, source: discordMessageSource(bot), faults: run.faults });
  // A message's attachments are downloaded before it is submitted; its channel's later messages wait for it.
  const attachmentDeps = { clock, logger: logger.child({ component: 'discord' }), signal: stopping.signal };
  const inOrder = new InOrder<InboundMessage>(
    (inbound) => intake.submit(inbound),
    (error: unknown) => logger.error({ err: error }, 'could not take a message'),
  );
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
    const inbound: InboundMessage = {
      source: 'discord',
      channelId: message.channelId,
      authorId: message.author.id,
      authorRoleIds: message.member?.roles.cache.map((role) => role.id) ?? [],
      messageId: message.id,
      text: withoutBotMention(message.content, bot.user.id),
    };
    inOrder.push(message.channelId, withAttachments(inbound, [...message.attachments.values()], attachmentSettings(config), attachmentDeps));
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isChatInputCommand()) return;
    const command = commandAsMessage(interaction);
    if (command === undefined) return;
    // The command runs even when its acknowledgement fails (its answer then goes to the channel): a `/stop` must stop.
    commands.open(interaction).catch((error: unknown) => logger.warn({ err: error, command: command.text }, 'could not acknowledge a slash command'));
    intake.submit(command);
  });
  await registerSlashCommands(bot, config.discord.guild_ids);
  logger.info({ user: bot.user.tag }, 'connected to Discord');
  const housekeeping = keepHouse(services, clock, config.turn_state.housekeeping_interval_seconds * 1000, stopping.signal);
  const caughtUp = catchUpAfterRestart(services, sink, 'discord', logger);
  await stopped;
  logger.info('shutting down: running turns are suspended with their work kept');
  stopping.abort();
  await intake.shutdown();
  await Promise.all([housekeeping, caughtUp]);
  await client.destroy();
}
