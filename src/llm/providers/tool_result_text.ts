import type { ToolResultBlock } from '../protocol.js';

/**
 * A tool result's content for APIs that have no error flag on it (both OpenAI APIs): a failed
 * call says so in words, so the model does not read an error message as a result.
 */
export function toolResultText(result: ToolResultBlock): string {
  return result.isError ? `Error: ${result.content}` : result.content;
}
