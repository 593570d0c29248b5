import {
  ApplicationCommandOptionType,
  InteractionContextType,
  type ApplicationCommandData,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { Inbound, InboundMessage, UsageSubject } from '../conversation/transport.js';
import { namesOf, placeOf } from './message_place.js';
import { serverScope } from './server_scope.js';

const text = ApplicationCommandOptionType.String as const;

/**
 * The admins' commands (DESIGN §5.4, §9.1), offered in servers only and shown by Discord to
 * server administrators alone unless a server grants them to others (`default_member_permissions`
 * "0"); the bot answers only `permissions.admins`. In a direct message an admin types `/model`.
 */
const ADMIN_ONLY = { defaultMemberPermissions: 0n, contexts: [InteractionContextType.Guild] } as const;

/**
 * The slash commands the bot registers: the commands the console takes as text (the admins'
 * `/model` among them, and `/usage`, whose options only admins may use), and the admins' `/turns`
 * and `/resolve` (elsewhere the operators use the command line).
 */
export const SLASH_COMMANDS: readonly ApplicationCommandData[] = [
  { name: 'help', description: 'The commands of the bot.' },
  { name: 'stop', description: 'Stop the request running in this channel.' },
  {
    name: 'resume',
    description: 'Continue your saved request in this channel.',
    options: [{ name: 'turn', description: 'Which saved request (see /status); your latest by default.', type: ApplicationCommandOptionType.String as const, required: false }],
  },
  { name: 'status', description: 'What is running and what is saved in this channel.' },
  {
    name: 'usage',
    description: 'What you used today and this month; admins may ask about a user, a channel or this server.',
    options: [
      { name: 'user', description: 'Admins: what this user used.', type: ApplicationCommandOptionType.User as const, required: false },
      { name: 'channel', description: 'Admins: what was used in this channel, and by whom most.', type: ApplicationCommandOptionType.Channel as const, required: false },
      { name: 'server', description: 'Admins: what was used in this server, and by whom and where most.', type: ApplicationCommandOptionType.Boolean as const, required: false },
    ],
  },
  {
    name: 'model',
    description: 'Admins: the models of this channel, or pick the one it uses.',
    ...ADMIN_ONLY,
    options: [{ name: 'name', description: 'The model to use here (`default`: the configured order); none lists them.', type: text, required: false }],
  },
  { name: 'turns', description: 'Admins: the requests in this server that need attention.', ...ADMIN_ONLY },
  {
    name: 'approve',
    description: 'Admins: approve a call that waits for approval in this channel.',
    ...ADMIN_ONLY,
    options: [{ name: 'call', description: 'The call, as its request names it; the only one waiting by default.', type: text, required: false }],
  },
  {
    name: 'deny',
    description: 'Admins: deny a call that waits for approval in this channel.',
    ...ADMIN_ONLY,
    options: [
      { name: 'call', description: 'The call, as its request names it; the only one waiting by default.', type: text, required: false },
      { name: 'note', description: 'Why: the model reads it.', type: text, required: false },
    ],
  },
  {
    name: 'resolve',
    description: 'Admins: record whether an uncertain call of a request took effect.',
    ...ADMIN_ONLY,
    options: [
      { name: 'turn', description: 'The request’s turn id, or its start (see /turns).', type: text, required: true },
      { name: 'call', description: 'The call, as /turns names it.', type: text, required: true },
      {
        name: 'verdict',
        description: 'Whether the call took effect.',
        type: text,
        required: true,
        choices: [
          { name: 'applied', value: 'applied' },
          { name: 'not_applied', value: 'not_applied' },
        ],
      },
      { name: 'text', description: 'Its result, or a note when it did not take effect; the request goes on with it.', type: text, required: false },
    ],
  },
];

/**
 * Where an interaction came from, as the message the conversation answers: its channel and user
 * with their roles there, its id (what its answers, to its user alone, are addressed to), `text`
 * for what was used, where, and how things are named there.
 */
export function interactionOrigin(interaction: ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction, text: string): InboundMessage {
  const roles = interaction.member === null ? [] : Array.isArray(interaction.member.roles) ? interaction.member.roles : [...interaction.member.roles.cache.keys()];
  return {
    source: 'discord',
    channelId: interaction.channelId ?? '',
    authorId: interaction.user.id,
    authorRoleIds: roles,
    messageId: interaction.id,
    text,
    place: placeOf(interaction.channel, interaction.guildId),
    names: namesOf(interaction.channel, interaction.guild, interaction.member !== null && 'displayName' in interaction.member ? interaction.member.displayName : interaction.user.displayName),
  };
}

/** Registers the commands in the listed servers (effective at once), or globally when none are listed. */
export async function registerSlashCommands(client: Client<true>, guildIds: readonly string[]): Promise<void> {
  if (guildIds.length === 0) {
    await client.application.commands.set(SLASH_COMMANDS);
    return;
  }
  for (const guildId of guildIds) await client.application.commands.set(SLASH_COMMANDS, guildId);
}

/**
 * A slash command as the typed command the conversation takes (its notices go to its user
 * alone, see CommandAnswers; a resumed request's reply to the channel); `undefined` for a command
 * that is not the bot's.
 */
export function slashCommand(interaction: ChatInputCommandInteraction): Inbound | undefined {
  const origin = interactionOrigin(interaction, `/${interaction.commandName}`);
  switch (interaction.commandName) {
    case 'help':
      return { kind: 'help', origin };
    case 'stop':
      return { kind: 'stop', origin };
    case 'status':
      return { kind: 'status', origin };
    case 'resume':
      return { kind: 'resume', origin, turnId: interaction.options.getString('turn') ?? undefined, spoken: false };
    case 'model':
      return { kind: 'model', origin, model: interaction.options.getString('name') ?? undefined };
    case 'usage':
      return { kind: 'usage', origin, subject: usageSubject(interaction) };
    case 'turns':
      return { kind: 'turns', origin, scope: serverScope(interaction.client, interaction.guildId) };
    case 'resolve':
      return {
        kind: 'resolve',
        origin,
        scope: serverScope(interaction.client, interaction.guildId),
        turn: interaction.options.getString('turn', true),
        call: interaction.options.getString('call', true),
        verdict: interaction.options.getString('verdict', true),
        text: interaction.options.getString('text'),
      };
    case 'approve':
    case 'deny':
      return {
        kind: 'approval',
        origin,
        target: { call: interaction.options.getString('call') ?? undefined },
        verdict: interaction.commandName === 'approve' ? 'approved' : 'denied',
        note: interaction.options.getString('note'),
        allowHere: false,
      };
    default:
      return undefined;
  }
}

/** Whose use `/usage`'s options name: none, the asker's own; `server:False` names nothing; more than one is unclear. */
function usageSubject(interaction: ChatInputCommandInteraction): UsageSubject {
  const user = interaction.options.getUser('user');
  const channel = interaction.options.getChannel('channel');
  const named: UsageSubject[] = [
    ...(user === null ? [] : [{ kind: 'user', userId: user.id } as const]),
    ...(channel === null ? [] : [{ kind: 'channel', channelId: channel.id } as const]),
    ...(interaction.options.getBoolean('server') === true ? [{ kind: 'server' } as const] : []),
  ];
  return named.length > 1 ? { kind: 'unclear' } : (named[0] ?? { kind: 'own' });
}
