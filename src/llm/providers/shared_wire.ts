import type { ErrorContext } from '../classify.js';
import { LLMRequestError } from '../errors.js';
import type { ImageBlock, ToolResultBlock } from '../protocol.js';
import { assertNever } from '../../core/assert_never.js';

/*
 * What the providers' wire formats share: an image inlined as base64, and, for the two OpenAI APIs,
 * the bearer headers and a tool result without an error flag.
 */

/**
 * An image's bytes as base64, as every provider wants them. A blob reference must have been
 * resolved by the caller before the request is built.
 * @throws {LLMRequestError} code `unresolved_blob` for a blob reference.
 */
export function inlineImage(image: ImageBlock, context: ErrorContext): { readonly mediaType: string; readonly data: string } {
  const { source } = image;
  switch (source.kind) {
    case 'base64':
      return { mediaType: image.mediaType, data: source.data };
    case 'blob':
      throw new LLMRequestError(`${context.provider} ${context.model}: image ${source.ref} is a blob reference; resolve it to its bytes before the request`, {
        ...context,
        code: 'unresolved_blob',
      });
    default:
      return assertNever(source);
  }
}

/** The image as a `data:` URL, for the OpenAI APIs. */
export function imageDataUrl(image: ImageBlock, context: ErrorContext): string {
  const { mediaType, data } = inlineImage(image, context);
  return `data:${mediaType};base64,${data}`;
}

/** The headers of a JSON request to an OpenAI-style API: the key as a bearer token when there is one, then the configured extras. */
export function bearerJsonHeaders(apiKey: string | undefined, extra: Readonly<Record<string, string>>): Record<string, string> {
  return { 'content-type': 'application/json', ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }), ...extra };
}

/**
 * A tool result's content for APIs that have no error flag on it (both OpenAI APIs): a failed
 * call says so in words, so the model does not read an error message as a result.
 */
export function toolResultText(result: ToolResultBlock): string {
  return result.isError ? `Error: ${result.content}` : result.content;
}
