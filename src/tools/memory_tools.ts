import type { ToolsSettings } from './tools_settings.js';
import type { JsonObject, JsonValue } from '../llm/protocol.js';
import { MAX_NOTE_LENGTH, MEMORY_SCOPES, type MemoryNote, type MemoryScope, type MemoryStore } from '../turn_state/memory_store.js';
import type { Tool, ToolContext, ToolOutcome } from './tool.js';
import { assertNever } from '../core/assert_never.js';

/** How long one memory call may take; SQLite answers in far less unless the file is locked. */
const TIMEOUT_MS = 10_000;

const scopeProperty: JsonObject = {
  type: 'string',
  enum: [...MEMORY_SCOPES],
  description: "Whose notes: 'user' (the default) for notes about or for the person asking, which only they can recall; 'channel' for notes everyone in this channel can recall.",
};

/** The scope the input names, `user` when it names none; `undefined` for anything else. */
function scopeOf(input: JsonObject): MemoryScope | undefined {
  const value = input['scope'];
  return value === undefined ? 'user' : MEMORY_SCOPES.find((scope) => scope === value);
}

/** The owner of a scope's notes: `source:requesterId` for `user` (an id on one transport is not the same person on another), `source:channelId` for `channel`. */
function ownerFor(scope: MemoryScope, context: ToolContext): string {
  switch (scope) {
    case 'user':
      return `${context.channel.source}:${context.requesterId}`;
    case 'channel':
      return `${context.channel.source}:${context.channel.channelId}`;
    default:
      return assertNever(scope);
  }
}

/** How the scope reads in a sentence. */
function whose(scope: MemoryScope): string {
  switch (scope) {
    case 'user':
      return 'for you';
    case 'channel':
      return 'for this channel';
    default:
      return assertNever(scope);
  }
}

/** The UTC calendar date a note was stored on, e.g. `2026-01-31`. */
const dateOf = (note: MemoryNote): string => new Date(note.createdAt).toISOString().slice(0, 10);

const quoted = (text: string): string => `"${text}"`;

/** A numbered list line; later lines of a multi-line note are indented under it. */
const listLine = (note: MemoryNote, index: number): string => `${index + 1}. ${dateOf(note)} — ${note.text.replace(/\r?\n/g, '\n   ')}`;

function failed(error: string): ToolOutcome {
  return { kind: 'failed', error };
}

function rememberTool(store: MemoryStore): Tool {
  return {
    name: 'remember',
    description:
      'Keeps a short note for later conversations, e.g. a preference, a fact about the person, or something the ' +
      'channel agreed on. Write the note so it makes sense on its own later. Notes can be looked up with recall.',
    inputSchema: {
      type: 'object',
      properties: {
        text: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_NOTE_LENGTH,
          description: `The note to keep, at most ${MAX_NOTE_LENGTH} characters, e.g. "Prefers answers in metric units".`,
        },
        scope: scopeProperty,
      },
      required: ['text'],
      additionalProperties: false,
    },
    effect: 'idempotent',
    timeoutMs: TIMEOUT_MS,
    async execute(input, context) {
      const scope = scopeOf(input);
      const raw = input['text'];
      if (scope === undefined || typeof raw !== 'string') return failed('remember needs a text and, optionally, a scope of user or channel');
      const text = raw.trim();
      if (text === '') return failed('the note is empty; there is nothing to remember');
      if (context.signal.aborted) return failed('remember was stopped before it stored anything');
      const result = await store.remember({ scope, ownerId: ownerFor(scope, context), text, key: context.idempotencyKey });
      switch (result.kind) {
        case 'stored':
        case 'already_stored': {
          const stored = result.kind === 'stored';
          const data: JsonValue = { scope, new: stored, text: result.note.text, date: dateOf(result.note) };
          const said = stored
            ? `Remembered ${whose(scope)}: ${quoted(result.note.text)}`
            : `Already remembered ${whose(scope)} (this call was repeated, so nothing new was stored): ${quoted(result.note.text)}`;
          return { kind: 'result', text: said, data };
        }
        case 'too_long':
          return failed(`the note is ${result.length} characters long; a note may be at most ${result.max}`);
        default:
          return assertNever(result);
      }
    },
  };
}

function recallTool(store: MemoryStore, limit: number): Tool {
  return {
    name: 'recall',
    description: `Looks up notes kept with remember, most recent first, each with the date it was stored; at most ${limit} at a time.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          maxLength: MAX_NOTE_LENGTH,
          description: 'Only notes containing this text (ignoring case); leave it out to get the most recent notes.',
        },
        scope: scopeProperty,
      },
      additionalProperties: false,
    },
    effect: 'read',
    timeoutMs: TIMEOUT_MS,
    async execute(input, context) {
      const scope = scopeOf(input);
      const rawQuery = input['query'];
      if (scope === undefined || (rawQuery !== undefined && typeof rawQuery !== 'string')) {
        return failed('recall takes an optional query text and an optional scope of user or channel');
      }
      if (context.signal.aborted) return failed('recall was stopped before it looked anything up');
      const query = rawQuery?.trim() ?? '';
      const found = await store.recall({ scope, ownerId: ownerFor(scope, context), query, limit });
      const matching = query === '' ? '' : ` matching ${quoted(query)}`;
      const data: JsonValue = { scope, notes: found.notes.map((note) => ({ text: note.text, date: dateOf(note) })), more: found.more };
      if (found.notes.length === 0) return { kind: 'result', text: `No notes are kept ${whose(scope)}${matching}.`, data };
      const count = found.notes.length === 1 ? '1 note' : `${found.notes.length} notes`;
      const lines = [`${count} kept ${whose(scope)}${matching}, most recent first:`, ...found.notes.map(listLine), ...(found.more ? [`Older notes${matching} exist but are not shown.`] : [])];
      return { kind: 'result', text: lines.join('\n'), data };
    },
  };
}

/**
 * The `remember` and `recall` tools over one {@link MemoryStore}. `remember` is `idempotent`: it
 * stores under the call's idempotency key, so a call re-sent after a crash takes effect once.
 */
export function createMemoryTools(store: MemoryStore, settings: ToolsSettings['memory']): readonly [remember: Tool, recall: Tool] {
  return [rememberTool(store), recallTool(store, settings.recall_limit)];
}
