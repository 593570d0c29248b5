import { buttonPressPayload, hasButton, modalSubmission, modalSubmitPayload } from './components.js';
import type { MessageJson, SnowflakeCounter } from './fixtures.js';
import type { FakeGateway } from './gateway.js';
import type { DispatchedRecord, InteractionLog } from './interaction_log.js';
import { interactionPayload, interactionUser, type InteractionIds } from './interactions.js';
import type { ButtonPress, DispatchedInteraction, ModalSubmission, SlashCommand } from './user_input.js';
import { guildOf, type World } from './world.js';

/**
 * A member using the bot's slash commands, buttons and modals: each use is logged, so its answers
 * can be checked, and sent as INTERACTION_CREATE to the shard that owns its guild.
 */
export class UserInteractions {
  constructor(
    private readonly world: World,
    private readonly ids: SnowflakeCounter,
    private readonly messages: ReadonlyMap<string, MessageJson>,
    private readonly gateway: FakeGateway,
    private readonly log: InteractionLog,
  ) {}

  /** A slash command in a guild channel, the world's first one unless told. */
  command(command: SlashCommand): DispatchedInteraction {
    const { world } = this;
    const channelId = command.channelId ?? world.channelId;
    const guildId = guildOf(world, channelId) ?? world.guildId;
    const ids = this.#newIds();
    const use = { channelId, guildId, ...interactionUser(world, guildId, command.userId) };
    const payload = interactionPayload(world, ids, use, { commandId: this.ids.next(), name: command.name, options: command.options ?? [] });
    return this.#dispatch({ ...ids, type: 2, use, messageId: undefined }, payload);
  }

  /** A press of a stored message's button; throws when the message has no such button to press. */
  press(press: ButtonPress): DispatchedInteraction {
    const message = this.messages.get(press.messageId);
    if (message === undefined) throw new Error(`no message ${press.messageId} to press a button on`);
    if (!hasButton(message, press.customId)) throw new Error(`message ${press.messageId} has no button ${press.customId} to press`);
    const guildId = guildOf(this.world, message.channel_id);
    const ids = this.#newIds();
    const use = { channelId: message.channel_id, guildId, ...interactionUser(this.world, guildId, press.userId, press.roles) };
    return this.#dispatch({ ...ids, type: 3, use, messageId: message.id }, buttonPressPayload(this.world, ids, use, press.customId, message));
  }

  /** The submission of the modal `opener` was answered with, by the user who saw it; throws when the bot showed none. */
  submit(submission: ModalSubmission): DispatchedInteraction {
    const opener = this.log.byId(submission.opener.id);
    const modal = this.log.modalOf(submission.opener.id);
    if (opener === undefined || modal === undefined) throw new Error(`interaction ${submission.opener.id} was not answered with a modal: await whenModal first`);
    const components = modalSubmission(modal, submission.values);
    const message = opener.messageId === undefined ? undefined : this.messages.get(opener.messageId);
    const ids = this.#newIds();
    return this.#dispatch({ ...ids, type: 5, use: opener.use, messageId: opener.messageId }, modalSubmitPayload(this.world, ids, opener.use, modal, components, message));
  }

  #newIds(): InteractionIds {
    const id = this.ids.next();
    return { id, token: `interaction-token-${id}` };
  }

  #dispatch(interaction: DispatchedRecord, payload: Record<string, unknown>): DispatchedInteraction {
    this.log.add(interaction);
    this.gateway.dispatch('INTERACTION_CREATE', payload, interaction.use.guildId);
    return { id: interaction.id, token: interaction.token };
  }
}
