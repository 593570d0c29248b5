import type { BlobSink, BlobSource } from './blob_store.js';
import type { HistoryAttachment } from './history_store.js';
import { assertNever } from '../core/assert_never.js';

/** An attachment as the `attachments` column stores it: the bytes of an image or a text file in a blob, or inline when there is no blob directory. */
type StoredAttachment =
  { readonly kind: 'image'; readonly name: string; readonly mediaType: string; readonly blob: string } | { readonly kind: 'text'; readonly name: string; readonly blob: string } | HistoryAttachment;

/**
 * The `attachments` column of an entry, and the blobs it refers to: each image's and text
 * file's bytes go to `blobs`, stored once per content. Without a blob directory (history in
 * memory) they stay inline. `null` when there are none.
 */
export function encodeAttachments(attachments: readonly HistoryAttachment[] | undefined, blobs: BlobSink | undefined): { readonly json: string | null; readonly digests: string[] } {
  if (attachments === undefined || attachments.length === 0) return { json: null, digests: [] };
  const digests: string[] = [];
  const keep = (bytes: Uint8Array, blobStore: BlobSink): string => {
    const digest = blobStore.put(bytes);
    digests.push(digest);
    return digest;
  };
  const stored = attachments.map((attachment): StoredAttachment => {
    if (blobs === undefined) return attachment;
    switch (attachment.kind) {
      case 'image':
        return { kind: 'image', name: attachment.name, mediaType: attachment.mediaType, blob: keep(Buffer.from(attachment.data, 'base64'), blobs) };
      case 'text':
        return { kind: 'text', name: attachment.name, blob: keep(Buffer.from(attachment.text, 'utf8'), blobs) };
      case 'skipped':
        return attachment;
      default:
        return assertNever(attachment);
    }
  });
  return { json: JSON.stringify(stored), digests };
}

/** The attachments an `attachments` column holds, their bytes read back from the blobs; `undefined` when there are none. */
export function decodeAttachments(json: string | null, blobs: BlobSource | undefined): HistoryAttachment[] | undefined {
  if (json === null) return undefined;
  const blobOf = (digest: string): Buffer => {
    if (blobs === undefined) throw new Error(`history attachment blob ${digest} cannot be read without a blob directory`);
    return blobs.get(digest);
  };
  return (JSON.parse(json) as StoredAttachment[]).map((stored): HistoryAttachment => {
    if (!('blob' in stored)) return stored;
    return stored.kind === 'image'
      ? { kind: 'image', name: stored.name, mediaType: stored.mediaType, data: blobOf(stored.blob).toString('base64') }
      : { kind: 'text', name: stored.name, text: blobOf(stored.blob).toString('utf8') };
  });
}
