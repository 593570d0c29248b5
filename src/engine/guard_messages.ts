import type { Message } from '../llm/protocol.js';

/**
 * The messages the loop's one-shot guards inject. Each is its own exact text, so that a
 * continuation can recognise a guard that fired after the checkpoint it restored from.
 */
export const GUARD_TEXT = {
  emptyTurn: 'Your last reply was empty. Answer the message above, or call a tool if you need one.',
  continueCutOff: 'Your reply was cut off by the length limit. Continue exactly where it stopped, without repeating anything.',
  finalAnswer: 'This is your last step: answer the user now with what you have, without calling any tool.',
} as const;

export type GuardKind = keyof typeof GUARD_TEXT;

export function guardMessage(kind: GuardKind): Message {
  return { role: 'user', content: [{ type: 'text', text: GUARD_TEXT[kind] }] };
}

/** Which guard injected `message`, if one did. */
export function guardOf(message: Message): GuardKind | undefined {
  if (message.role !== 'user' || message.content.length !== 1) return undefined;
  const [block] = message.content;
  if (block?.type !== 'text') return undefined;
  return (Object.keys(GUARD_TEXT) as GuardKind[]).find((kind) => GUARD_TEXT[kind] === block.text);
}

/** The warning added to a call's result the third time the same call is proposed. */
export function repeatWarning(toolName: string, times: number): string {
  return `\n\n[Holdfast: ${toolName} was called with this same input ${times} times. Its answer will not change; do not call it again with this input — a fourth identical call will be refused.]`;
}
