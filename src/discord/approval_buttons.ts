import { ActionRowBuilder, ButtonBuilder, ButtonStyle, ModalBuilder, TextInputBuilder, TextInputStyle, type ButtonInteraction, type ModalSubmitInteraction } from 'discord.js';
import type { Inbound } from '../conversation/transport.js';
import { assertNever } from '../core/assert_never.js';
import { interactionOrigin } from './slash_commands.js';

/**
 * A request for approval on Discord (DESIGN §9.2): its message carries Approve, Deny and "Always
 * allow here" buttons whose custom ids name the request by its stable id, never by anything in
 * memory, so that they work from any process and after any restart. Deny opens a short modal for
 * an optional note. What a press means is decided by the conversation: who may answer, and whether
 * the request still waits.
 */
const PREFIX = 'hf-approval';
const ACTIONS = ['approve', 'deny', 'always', 'deny-note'] as const;
type Action = (typeof ACTIONS)[number];

/** The note's field in the Deny modal. */
const NOTE_FIELD = 'note';
/** The longest note a person may give with a denial. */
const NOTE_MAX_CHARS = 500;

const customId = (action: Action, approvalId: string): string => `${PREFIX}:${action}:${approvalId}`;

/** The buttons of a request for approval. */
export function approvalButtons(approvalId: string): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(customId('approve', approvalId)).setLabel('Approve').setStyle(ButtonStyle.Success),
    new ButtonBuilder().setCustomId(customId('deny', approvalId)).setLabel('Deny').setStyle(ButtonStyle.Danger),
    new ButtonBuilder().setCustomId(customId('always', approvalId)).setLabel('Always allow here').setStyle(ButtonStyle.Secondary),
  );
}

/** What a component's custom id asks for, when it is one of a request for approval. */
export function approvalAction(id: string): { readonly action: Action; readonly approvalId: string } | undefined {
  const [prefix, action, approvalId] = id.split(':');
  if (prefix !== PREFIX || approvalId === undefined || approvalId === '' || !ACTIONS.some((known) => known === action)) return undefined;
  return { action: action as Action, approvalId };
}

/** The Deny button's modal: an optional note for the model. */
export function denyModal(approvalId: string): ModalBuilder {
  const note = new TextInputBuilder().setCustomId(NOTE_FIELD).setLabel('Why (optional, the model reads it)').setStyle(TextInputStyle.Paragraph).setRequired(false).setMaxLength(NOTE_MAX_CHARS);
  return new ModalBuilder().setCustomId(customId('deny-note', approvalId)).setTitle('Deny this call').addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(note));
}

/** A press of Approve or "Always allow here", or a submitted Deny modal, as the answer the conversation takes. */
export function approvalAnswer(interaction: ButtonInteraction | ModalSubmitInteraction, approvalId: string, action: Exclude<Action, 'deny'>): Inbound {
  const origin = interactionOrigin(interaction, `/${action}`);
  const target = { approvalId };
  switch (action) {
    case 'approve':
    case 'always':
      return { kind: 'approval', origin, target, verdict: 'approved', note: null, allowHere: action === 'always' };
    case 'deny-note': {
      const note = interaction.isModalSubmit() ? interaction.fields.getTextInputValue(NOTE_FIELD).trim() : '';
      return { kind: 'approval', origin, target, verdict: 'denied', note: note === '' ? null : note, allowHere: false };
    }
    default:
      return assertNever(action);
  }
}
