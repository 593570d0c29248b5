import type { AttachmentJson, SnowflakeCounter } from './fixtures.js';
import { notFound, type HttpReply } from './http.js';

/** A file on a dispatched user message. Images need a width and height: given, or read from a PNG or GIF header. */
export interface AttachmentFile {
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
  readonly width?: number;
  readonly height?: number;
}

/** The path under which attachment bytes are served, outside `/api`. */
export const ATTACHMENTS_PATH = '/attachments/';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The width and height from a PNG or GIF header, if the bytes are one. */
export function imageSize(data: Buffer): { width: number; height: number } | undefined {
  if (data.length >= 24 && data.subarray(0, 8).equals(PNG_SIGNATURE)) {
    return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  }
  if (data.length >= 10 && data.subarray(0, 4).toString('latin1') === 'GIF8') {
    return { width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
  }
  return undefined;
}

function dimensions(file: AttachmentFile): { width: number; height: number } | undefined {
  if (!file.contentType.startsWith('image/')) return undefined;
  if (file.width !== undefined && file.height !== undefined) return { width: file.width, height: file.height };
  const size = imageSize(file.data);
  if (size === undefined) throw new Error(`give the width and height of ${file.filename}: it is not a PNG or GIF`);
  return size;
}

/** Attachment bytes by id, served over plain HTTP as Discord's CDN would. */
export class AttachmentStore {
  readonly #files = new Map<string, AttachmentFile>();

  /** Stores the files and returns their attachment objects, with URLs under `origin`. */
  add(ids: SnowflakeCounter, origin: string, files: readonly AttachmentFile[]): AttachmentJson[] {
    return files.map((file) => {
      const id = ids.next();
      this.#files.set(id, file);
      const url = `${origin}${ATTACHMENTS_PATH}${id}/${encodeURIComponent(file.filename)}`;
      const size = dimensions(file);
      return {
        id,
        filename: file.filename,
        size: file.data.length,
        url,
        proxy_url: url,
        content_type: file.contentType,
        ...(size === undefined ? {} : { width: size.width, height: size.height }),
      };
    });
  }

  /** `GET /attachments/:id/:filename`: the bytes with their content type; 404 for anything else. */
  serve(method: string, path: string): HttpReply {
    const [id, filename, ...rest] = path.slice(ATTACHMENTS_PATH.length).split('/');
    const file = id === undefined ? undefined : this.#files.get(id);
    if (method !== 'GET' || file === undefined || filename !== file.filename || rest.length > 0) return notFound();
    return { status: 200, file: { contentType: file.contentType, data: file.data } };
  }
}
