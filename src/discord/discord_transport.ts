import { setMaxListeners } from 'node:events';
import { TEXTS } from '../conversation/notices/texts.js';
import {
  Client,
  Events,
  GatewayIntentBits,
  OAuth2Scopes,
  Options,
  Partials,
  PermissionFlagsBits,
  Status,
  type ButtonInteraction,
  type Message,
  type ModalSubmitInteraction,
  type OmitPartialGroupDMChannel,
  type PartialMessage,
} from 'discord.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { reachAtStart, type StartupRetry } from '../core/start_retries.js';
import { inboundFromText } from '../conversation/notices/channel_commands.js';
import type { Inbound, InboundMessage, MessageChange, Transport } from '../conversation/transport.js';
import { speakerOf, type AccessPolicy } from './access_policy.js';
import { attachmentSettings, withAttachments } from './attachments.js';
import { BotPresence } from './bot_presence.js';
import { CommandAnswers } from './command_answers.js';
import { logIn } from './discord_login.js';
import { isDiscordLoginError } from './discord_login_error.js';
import type { DiscordSettings } from './discord_settings.js';
import { discordSink } from './discord_sink.js';
import { discordMessageSource } from './discord_source.js';
import { InOrder } from './in_order.js';
import { addressesBot, withoutBotMention } from './mention_policy.js';
import { namesOf, placeOf } from './message_place.js';
import { channelOwnership, shardOptions } from './shard_ownership.js';
import { interactionOrigin, registerSlashCommands, slashCommand } from './slash_commands.js';
import { approvalAction, approvalAnswer, denyModal } from './approval_buttons.js';

/** How many of each channel's messages discord.js keeps in memory (its default is 200). */
export const MESSAGES_CACHED_PER_CHANNEL = 20;

export interface DiscordTransportOptions {
  readonly discord: DiscordSettings;
  /** `llm.vision`: whether image attachments are downloaded for the model. */
  readonly vision: boolean;
  readonly token: string;
  /** Who may talk to the bot, and where (`access`, `permissions.admins`). */
  readonly access: AccessPolicy;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How logging in is tried again while Discord cannot be reached (`startup_timeout_seconds`). */
  readonly startup: StartupRetry;
}

/**
 * Discord as a transport: the discord.js client against `discord.api_url`; messages that address
 * the bot (DESIGN §2, mention policy) become typed commands, with their attachments downloaded
 * first and each channel's messages kept in order; the slash commands arrive typed. The bot's
 * presence shows `discord.status_message`, or that the model is overloaded. A message
 * from someone the access rules do not let in is ignored before anything is downloaded, kept or
 * answered; their slash command is refused to them alone. A login that cannot reach Discord is
 * tried again with a fresh client until `startup` gives up; one Discord refuses fails at once.
 */
export function discordTransport(options: DiscordTransportOptions): Transport {
  const { discord, clock } = options;
  const logger = options.logger.child({ component: 'discord' });
  // Ends the waits of deliveries and downloads at shutdown; an unfinished delivery is posted after the next start.
  const stopping = new AbortController();
  // Each channel's delivery and draft refresh waits on it at once: many listeners are expected, not a leak.
  setMaxListeners(Number.POSITIVE_INFINITY, stopping.signal);
  const commands = new CommandAnswers(clock);
  const newClient = (): Client =>
    new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
      // Edits and deletions of messages sent before this process started arrive as partial messages.
      partials: [Partials.Channel, Partials.Message],
      // The bot reads messages through Discord, never from discord.js's cache: a few per channel keep memory flat however long it runs.
      makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: MESSAGES_CACHED_PER_CHANNEL }),
      ...shardOptions(discord.shards),
      rest: { globalRequestsPerSecond: discord.requests_per_second, ...(discord.api_url === undefined ? {} : { api: discord.api_url }) },
    });
  const where = discord.api_url === undefined ? '' : ` at ${discord.api_url}`;
  // The client of the latest login attempt, and its presence.
  let client: Client | undefined;
  let presence: BotPresence | undefined;
  let bot: Client<true> | undefined;
  let serves: ((channelId: string) => Promise<boolean>) | undefined;
  return {
    source: 'discord',
    async connect() {
      bot = await reachAtStart(
        {
          what: `Discord${where}`,
          attempt: (signal) => {
            client = newClient();
            presence = new BotPresence(client, discord.status_message);
            return logIn(client, options.token, where, signal);
          },
          unreachable: (error) => isDiscordLoginError(error) && error.failure === 'unreachable',
        },
        options.startup,
      );
      serves = channelOwnership(bot, logger);
      const sink = discordSink({
        client: bot,
        clock,
        logger,
        editIntervalMs: discord.edit_interval_ms,
        requestsPerSecond: discord.requests_per_second,
        delivery: { clock, backoffMs: discord.delivery_backoff_seconds * 1000, deadlineMs: discord.delivery_deadline_seconds * 1000, signal: stopping.signal },
        commands,
      });
      return { sink, messages: discordMessageSource(bot) };
    },
    async listen(submit, follow) {
      if (bot === undefined) throw new Error('listen before connect');
      const user = bot.user;
      // A message's attachments are downloaded before it is submitted; its channel's later messages wait for it.
      const inOrder = new InOrder<Inbound>(submit, (error: unknown) => logger.error({ err: error }, 'could not take a message'));
      const downloads = { clock, logger, signal: stopping.signal };
      const attachments = attachmentSettings(discord, options.vision);
      bot.on(Events.MessageCreate, (message: Message) => {
        const inbound = addressedMessage(message, user.id, discord.channels);
        if (inbound === undefined) return;
        const refused = options.access.refusal(speakerOf(inbound, message.guildId === null));
        if (refused !== undefined) {
          logger.debug({ user: inbound.authorId, channel: inbound.channelId, reason: refused }, 'ignored a message: the access rules do not let its author talk to the bot here');
          return;
        }
        inOrder.push(message.channelId, Promise.resolve(withAttachments(inbound, [...message.attachments.values()], attachments, downloads)).then(inboundFromText));
      });
      if (follow !== undefined) followChanges(bot, user.id, follow);
      /** A press on a request for approval (DESIGN §9.2): Deny opens its modal; any other answer is acknowledged to its user alone and handed over. */
      const answerApproval = (interaction: ButtonInteraction | ModalSubmitInteraction): void => {
        const asked = approvalAction(interaction.customId);
        if (asked === undefined) return;
        const refused = options.access.refusal(speakerOf(interactionOrigin(interaction, interaction.customId), interaction.guildId === null));
        if (refused !== undefined) {
          commands.refuse(interaction, TEXTS.accessRefused).catch((error: unknown) => logger.warn({ err: error }, 'could not refuse an answer to a request for approval'));
          return;
        }
        if (asked.action === 'deny' && interaction.isButton()) {
          interaction.showModal(denyModal(asked.approvalId)).catch((error: unknown) => logger.warn({ err: error }, 'could not open the note of a denial'));
          return;
        }
        commands.open(interaction).catch((error: unknown) => logger.warn({ err: error }, 'could not acknowledge an answer to a request for approval'));
        submit(approvalAnswer(interaction, asked.approvalId, asked.action === 'deny' ? 'deny-note' : asked.action));
      };
      bot.on(Events.InteractionCreate, (interaction) => {
        if (interaction.isButton() || interaction.isModalSubmit()) return answerApproval(interaction);
        if (!interaction.isChatInputCommand()) return;
        const command = slashCommand(interaction);
        if (command === undefined) return;
        const refused = options.access.refusal(speakerOf(command.origin, interaction.guildId === null));
        if (refused !== undefined) {
          logger.debug(
            { user: command.origin.authorId, channel: command.origin.channelId, command: interaction.commandName, reason: refused },
            'refused a slash command: the access rules do not let its user talk to the bot here',
          );
          commands.refuse(interaction, TEXTS.accessRefused).catch((error: unknown) => logger.warn({ err: error, command: interaction.commandName }, 'could not refuse a slash command'));
          return;
        }
        // The command runs even when its acknowledgement fails (its answer then goes to the channel): a `/stop` must stop.
        commands.open(interaction).catch((error: unknown) => logger.warn({ err: error, command: interaction.commandName }, 'could not acknowledge a slash command'));
        submit(command);
      });
      await registerSlashCommands(bot, discord.guild_ids);
      logger.info({ user: user.tag }, 'connected to Discord');
      const invite = bot.generateInvite({ scopes: [OAuth2Scopes.Bot, OAuth2Scopes.ApplicationsCommands], permissions: INVITE_PERMISSIONS });
      logger.info({ invite }, `to add the bot to a server, open ${invite}`);
      await new Promise<void>((resolve) => stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
    },
    serves: (channelId) => serves?.(channelId) ?? Promise.resolve(false),
    stopInput: () => stopping.abort(),
    // The client stays "ready" through a dropped gateway connection; its shards say whether they are up.
    connected: () => client !== undefined && client.isReady() && client.ws.shards.every((shard) => shard.status === Status.Ready),
    showHealth: (health) => presence?.show(health),
    async close() {
      stopping.abort();
      await client?.destroy();
    },
  };
}

/**
 * What the bot needs in a channel, asked for by its invite URL: to see it, read its history (the
 * conversation and replies to the bot), and post and edit its replies there and in its threads.
 */
const INVITE_PERMISSIONS = [PermissionFlagsBits.ViewChannel, PermissionFlagsBits.ReadMessageHistory, PermissionFlagsBits.SendMessages, PermissionFlagsBits.SendMessagesInThreads];

/** Hands the conversation every edit and deletion of a member's message, so that the history follows them (DESIGN §1). */
function followChanges(client: Client, botId: string, follow: (change: MessageChange) => void): void {
  client.on(Events.MessageUpdate, (_old, updated) => {
    const edited = editOf(updated, botId);
    if (edited !== undefined) follow(edited);
  });
  client.on(Events.MessageDelete, (message) => follow({ kind: 'deleted', source: 'discord', channelId: message.channelId, messageIds: [message.id] }));
  client.on(Events.MessageBulkDelete, (messages, channel) => follow({ kind: 'deleted', source: 'discord', channelId: channel.id, messageIds: [...messages.keys()] }));
}

/** A member's edit as the history takes it, the bot's mention taken out; `undefined` for the bots' own messages and for updates without text. */
function editOf(message: OmitPartialGroupDMChannel<Message | PartialMessage>, botId: string): MessageChange | undefined {
  if (message.partial || message.author.bot) return undefined;
  return { kind: 'edited', source: 'discord', channelId: message.channelId, messageId: message.id, text: withoutBotMention(message.content, botId) };
}

/** The message as the conversation takes it, when it addresses the bot; the bot's mention is taken out of its text. */
function addressedMessage(message: Message, botId: string, channels: readonly string[]): InboundMessage | undefined {
  const view = {
    authorId: message.author.id,
    authorIsBot: message.author.bot,
    channelId: message.channelId,
    parentChannelId: message.channel.isThread() ? (message.channel.parentId ?? undefined) : undefined,
    isDirectMessage: message.guildId === null,
    mentionsBot: message.mentions.users.has(botId),
    repliesToBot: message.mentions.repliedUser?.id === botId,
  };
  if (!addressesBot(view, botId, channels)) return undefined;
  return {
    source: 'discord',
    channelId: message.channelId,
    authorId: message.author.id,
    authorRoleIds: message.member?.roles.cache.map((role) => role.id) ?? [],
    messageId: message.id,
    text: withoutBotMention(message.content, botId),
    place: placeOf(message.channel, message.guildId),
    names: namesOf(message.channel, message.guild, message.member?.displayName ?? message.author.displayName),
  };
}
