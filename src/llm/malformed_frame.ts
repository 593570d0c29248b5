import type { ErrorContext } from './classify.js';
import { LLMTransportError } from './errors.js';
import { isRecord, parseJson, type JsonRecord } from './json_fields.js';

const EXCERPT_CHARS = 120;

/**
 * The JSON object a streamed frame's data holds. A frame that holds none cannot be read, and
 * skipping it could leave a hole in the reply ("lo" for "hello").
 * @throws {LLMTransportError} `malformed_frame` (see {@link malformedFrame}) when `data` is not a JSON object.
 */
export function frameObject(data: string, context: ErrorContext): JsonRecord {
  const value = parseJson(data);
  if (!isRecord(value)) throw malformedFrame(data, context);
  return value;
}

/**
 * The error for a frame that cannot be read: a transport error, so the attempt fails and is
 * retried within the deadline like a dropped stream, instead of answering with what is left.
 */
export function malformedFrame(data: string, context: ErrorContext): LLMTransportError {
  const excerpt = data.length > EXCERPT_CHARS ? `${data.slice(0, EXCERPT_CHARS)}…` : data;
  return new LLMTransportError(`${context.provider} ${context.model}: a streamed frame is not a JSON object: ${excerpt}`, { ...context, code: 'malformed_frame' });
}
