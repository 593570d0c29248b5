/**
 * The exact shape of a stored transcript (DESIGN §7.5): known roles, blocks of the known types
 * with exactly their fields, judged with the non-throwing checks of `checkpoint_validation.ts`.
 */
import type { ContentBlock, Message, Role } from '../llm/protocol.js';
import { assertNever } from '../core/assert_never.js';
import { checkJsonValue, checkObject, describeValue, isPlainObject, pathOf, readArray, readBoolean, readString, type FieldCheck } from './checkpoint_validation.js';

/** The roles a transcript message may have; typed so that a new `Role` must be listed. */
const ROLES: { readonly [R in Role]: true } = { system: true, user: true, assistant: true, tool: true };
const BLOCK_TYPES: { readonly [T in ContentBlock['type']]: true } = { text: true, image: true, tool_use: true, tool_result: true, reasoning: true };

function isRole(value: unknown): value is Role {
  return typeof value === 'string' && Object.hasOwn(ROLES, value);
}

function isBlockType(value: unknown): value is ContentBlock['type'] {
  return typeof value === 'string' && Object.hasOwn(BLOCK_TYPES, value);
}

/**
 * Whether `value` is an array of {@link Message}s of the protocol's exact shape: a known role, a
 * content array of blocks of the known types with exactly their fields, of the right types. A
 * `tool_use` block is accepted only in an assistant message: only the model proposes calls.
 * Returns true when no problem was found. Tool-pair validity is not judged here.
 */
export function checkTranscriptShape(value: unknown, path: string, problems: string[]): value is Message[] {
  const before = problems.length;
  const messages = readArray(value, path, problems);
  if (messages === undefined) return false;
  // An index loop, not forEach: a hole in a sparse array must be judged (and rejected), not skipped.
  for (let index = 0; index < messages.length; index++) checkMessage(messages[index], pathOf(path, index), problems);
  return problems.length === before;
}

const isAny: FieldCheck = () => undefined;

function checkMessage(value: unknown, path: string, problems: string[]): void {
  const role = isPlainObject(value) ? value['role'] : undefined;
  checkObject(value, path, problems, {
    role: (field, at) => {
      if (!isRole(field)) problems.push(`${at}: must be one of ${Object.keys(ROLES).join(', ')}, got ${describeValue(field)}`);
    },
    content: (field, at) => {
      const blocks = readArray(field, at, problems) ?? [];
      for (let index = 0; index < blocks.length; index++) checkBlock(blocks[index], pathOf(at, index), isRole(role) ? role : undefined, problems);
    },
  });
}

function checkBlock(value: unknown, path: string, role: Role | undefined, problems: string[]): void {
  if (!isPlainObject(value)) {
    problems.push(`${path}: must be a content block object, got ${describeValue(value)}`);
    return;
  }
  const type = value['type'];
  if (!isBlockType(type)) {
    problems.push(`${pathOf(path, 'type')}: must be one of ${Object.keys(BLOCK_TYPES).join(', ')}, got ${describeValue(type)}`);
    return;
  }
  switch (type) {
    case 'text':
      checkObject(value, path, problems, { type: isAny, text: readString });
      return;
    case 'image':
      checkObject(value, path, problems, { type: isAny, mediaType: readString, source: checkImageSource });
      return;
    case 'tool_use':
      if (role !== undefined && role !== 'assistant') problems.push(`${path}: a tool_use block must be in an assistant message, not in a ${role} message`);
      checkObject(value, path, problems, { type: isAny, id: readString, name: readString, input: checkJsonObject }, { malformedInput: checkMalformedInput });
      return;
    case 'tool_result':
      checkObject(value, path, problems, { type: isAny, toolUseId: readString, content: readString, isError: readBoolean });
      return;
    case 'reasoning':
      if (role !== undefined && role !== 'assistant') problems.push(`${path}: a reasoning block must be in an assistant message, not in a ${role} message`);
      checkObject(value, path, problems, { type: isAny, encryptedContent: readString, summary: checkStrings });
      return;
    default:
      return assertNever(type);
  }
}

function checkStrings(value: unknown, path: string, problems: string[]): void {
  const items = readArray(value, path, problems) ?? [];
  for (let index = 0; index < items.length; index++) readString(items[index], pathOf(path, index), problems);
}

function checkImageSource(value: unknown, path: string, problems: string[]): void {
  const kind = isPlainObject(value) ? value['kind'] : undefined;
  if (kind === 'base64') checkObject(value, path, problems, { kind: isAny, data: readString });
  else if (kind === 'blob') checkObject(value, path, problems, { kind: isAny, ref: readString });
  else if (!isPlainObject(value)) problems.push(`${path}: must be an object, got ${describeValue(value)}`);
  else problems.push(`${pathOf(path, 'kind')}: must be base64 or blob, got ${describeValue(kind)}`);
}

function checkJsonObject(value: unknown, path: string, problems: string[]): void {
  if (isPlainObject(value)) checkJsonValue(value, path, problems);
  else problems.push(`${path}: must be an object, got ${describeValue(value)}`);
}

function checkMalformedInput(value: unknown, path: string, problems: string[]): void {
  checkObject(value, path, problems, { raw: readString, reason: readString });
}
