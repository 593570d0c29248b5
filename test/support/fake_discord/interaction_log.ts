import { Conditions } from '../conditions.js';
import type { ModalJson } from './components.js';
import type { MessageJson } from './fixtures.js';
import type { InteractionIds, InteractionUse } from './interactions.js';

/** How the bot acknowledged an interaction: the callback types 4, 5, 6, 7 and 9. */
export type CallbackKind = 'reply' | 'deferred_reply' | 'deferred_update' | 'update' | 'modal';

/** One answer to an interaction: its callback, a follow-up message, or an edit of its original response. */
export type AnswerType = CallbackKind | 'followup' | 'edit_original';

/** An answer as the bot gave it. */
export interface InteractionAnswer {
  readonly type: AnswerType;
  /** Seen only by the user who used the interaction (flag 64); an edit is as ephemeral as the message it edits. */
  readonly ephemeral: boolean;
  /** The content it sets; undefined when it sets none. */
  readonly content: string | undefined;
  /** The components it sets (a modal's for a modal); undefined when it leaves them as they were. */
  readonly components: readonly unknown[] | undefined;
  /** The modal shown, for a `modal` answer. */
  readonly modal?: ModalJson;
}

/** An interaction the fake dispatched, and where its answers stand. */
export interface InteractionRecord extends InteractionIds {
  /** Discord's interaction type: 2 a slash command, 3 a button press, 5 a modal submission. */
  readonly type: 2 | 3 | 5;
  readonly use: InteractionUse;
  /** The message whose button was pressed: for a modal submission, the one whose button opened the modal. */
  readonly messageId: string | undefined;
  /** The callback that acknowledged it; a second one is refused. */
  acknowledged: CallbackKind | undefined;
  /** Its own response (callback 4 or 5), which `@original` edits; the fake keeps it out of the channel. */
  original: MessageJson | undefined;
  readonly answers: InteractionAnswer[];
}

/** What the fake knows of an interaction when it dispatches it. */
export type DispatchedRecord = Pick<InteractionRecord, 'id' | 'token' | 'type' | 'use' | 'messageId'>;

/** Every interaction the fake dispatched, by id and by token, with the answers each got in order. */
export class InteractionLog {
  readonly #byId = new Map<string, InteractionRecord>();
  readonly #conditions = new Conditions();

  /** Records a dispatched interaction, not yet answered. */
  add(interaction: DispatchedRecord): void {
    this.#byId.set(interaction.id, { ...interaction, acknowledged: undefined, original: undefined, answers: [] });
  }

  /** The interaction with this id, if the fake dispatched it. */
  byId(id: string): InteractionRecord | undefined {
    return this.#byId.get(id);
  }

  /** The interaction whose answers this token addresses, if the fake dispatched it. */
  byToken(token: string): InteractionRecord | undefined {
    return [...this.#byId.values()].find((interaction) => interaction.token === token);
  }

  /** Appends an answer the fake accepted and wakes whoever waits for it. */
  answered(interaction: InteractionRecord, answer: InteractionAnswer): void {
    interaction.answers.push(answer);
    this.#conditions.changed();
  }

  /** The answers interaction `id` got so far, in order. */
  answers(id: string): InteractionAnswer[] {
    return [...(this.#byId.get(id)?.answers ?? [])];
  }

  /** Resolves with the first answer to interaction `id` that matches, already given or still to come. */
  whenAnswer(id: string, matches: (answer: InteractionAnswer) => boolean): Promise<InteractionAnswer> {
    const found = (): InteractionAnswer | undefined => this.#byId.get(id)?.answers.find(matches);
    return this.#conditions.when(() => found() !== undefined).then(() => found() as InteractionAnswer);
  }

  /** Resolves with the modal interaction `id` was answered with, shown already or still to come. */
  whenModal(id: string): Promise<ModalJson> {
    return this.whenAnswer(id, (answer) => answer.modal !== undefined).then((answer) => answer.modal as ModalJson);
  }

  /** The modal interaction `id` was answered with, if it was. */
  modalOf(id: string): ModalJson | undefined {
    return this.#byId.get(id)?.answers.find((answer) => answer.modal !== undefined)?.modal;
  }
}
