import { CallToolResultSchema, type ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { assertNever } from '../../core/assert_never.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../core/json_bounds.js';

/** What an MCP server's answer to `tools/call` says, in text for the model. */
export type CallAnswer = { readonly kind: 'result'; readonly text: string } | { readonly kind: 'tool_error'; readonly text: string } | { readonly kind: 'unreadable'; readonly problem: string };

/**
 * Reads the result of a `tools/call`: `isError` is the tool's own report that the call failed;
 * otherwise its content is the result, text parts joined by blank lines and every other part
 * named in brackets (an image, audio, a linked or embedded resource). A result with no content
 * but structured content gives that as JSON. An answer that is not a tool result at all, or whose
 * structured content nests deeper than {@link MAX_JSON_DEPTH} (DESIGN §9.3), is `unreadable`: the
 * server did answer, so the call may have had its effect.
 */
export function readCallAnswer(answer: unknown): CallAnswer {
  const parsed = CallToolResultSchema.safeParse(answer);
  if (!parsed.success) return { kind: 'unreadable', problem: 'the server’s answer is not a tool result' };
  const { content, structuredContent, isError } = parsed.data;
  const parts = content.map(describePart);
  if (parts.length === 0 && structuredContent !== undefined) {
    if (nestsDeeperThan(structuredContent)) return { kind: 'unreadable', problem: `its structured content nests deeper than ${MAX_JSON_DEPTH} levels` };
    parts.push(JSON.stringify(structuredContent));
  }
  const text = parts.join('\n\n');
  if (isError === true) return { kind: 'tool_error', text: text === '' ? 'the tool reported an error without saying what it was' : text };
  return { kind: 'result', text };
}

function describePart(part: ContentBlock): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
      return `[image, ${part.mimeType}]`;
    case 'audio':
      return `[audio, ${part.mimeType}]`;
    case 'resource_link':
      return `[resource link: ${part.uri}${part.name === '' ? '' : ` (${part.name})`}]`;
    case 'resource':
      return 'text' in part.resource ? part.resource.text : `[resource: ${part.resource.uri}${part.resource.mimeType === undefined ? '' : `, ${part.resource.mimeType}`}]`;
    default:
      return assertNever(part);
  }
}
