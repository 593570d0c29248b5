import type { ContentBlock, Message } from '../llm/protocol.js';
import type { BlobSink, BlobSource } from './blob_store.js';
import { scrubJsonText, scrubSecrets } from './scrub.js';
import { assertNever } from '../core/assert_never.js';

/** Tool results longer than this go to the blob store instead of the row. */
export const INLINE_LIMIT_BYTES = 16 * 1024;

/** A tool result whose content lives in a blob; only ever found in storage. */
interface StoredBlobResult {
  readonly type: 'tool_result';
  readonly toolUseId: string;
  readonly isError: boolean;
  readonly contentBlob: string;
}

/** An inline image whose bytes the store moved into a blob; only ever found in storage. */
interface StoredBlobImage {
  readonly type: 'image';
  readonly mediaType: string;
  readonly bytesBlob: string;
}

type StoredBlock = ContentBlock | StoredBlobResult | StoredBlobImage;

/**
 * A message as a transcript row stores it: tool arguments and results scrubbed of secrets
 * (DESIGN §7.6), images and large results moved into the blob store. Returns the row's JSON and
 * the blobs it refers to.
 */
export function encodeMessage(message: Message, blobs: BlobSink): { readonly json: string; readonly digests: string[] } {
  const digests: string[] = [];
  const content = message.content.map((block): StoredBlock => {
    switch (block.type) {
      case 'text':
      case 'reasoning':
        return block;
      case 'image': {
        if (block.source.kind === 'blob') return block;
        const bytesBlob = blobs.put(Buffer.from(block.source.data, 'base64'));
        digests.push(bytesBlob);
        return { type: 'image', mediaType: block.mediaType, bytesBlob };
      }
      case 'tool_use': {
        const { malformedInput, ...rest } = block;
        return { ...rest, input: scrubSecrets(block.input), ...(malformedInput === undefined ? {} : { malformedInput: { reason: malformedInput.reason, raw: scrubJsonText(malformedInput.raw) } }) };
      }
      case 'tool_result': {
        const content = scrubJsonText(block.content);
        if (Buffer.byteLength(content) <= INLINE_LIMIT_BYTES) return { ...block, content };
        const contentBlob = blobs.put(Buffer.from(content));
        digests.push(contentBlob);
        return { type: 'tool_result', toolUseId: block.toolUseId, isError: block.isError, contentBlob };
      }
      default:
        return assertNever(block);
    }
  });
  return { json: JSON.stringify({ role: message.role, content }), digests };
}

/** The message a transcript row holds, with images and large results read back from their blobs. */
export function decodeMessage(json: string, blobs: BlobSource): Message {
  const stored = JSON.parse(json) as { role: Message['role']; content: StoredBlock[] };
  const content = stored.content.map((block): ContentBlock => {
    if ('contentBlob' in block) {
      return { type: 'tool_result', toolUseId: block.toolUseId, isError: block.isError, content: blobs.get(block.contentBlob).toString('utf8') };
    }
    if ('bytesBlob' in block) {
      return { type: 'image', mediaType: block.mediaType, source: { kind: 'base64', data: blobs.get(block.bytesBlob).toString('base64') } };
    }
    return block;
  });
  return { role: stored.role, content };
}
