import type { ErrorContext } from '../classify.js';
import { LLMRequestError } from '../errors.js';
import type { ImageBlock } from '../protocol.js';
import { assertNever } from '../../core/assert_never.js';

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
