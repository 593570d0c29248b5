import type { IncomingMessage, ServerResponse } from 'node:http';

/** Raw bytes to answer with instead of JSON. */
export interface FileBody {
  readonly contentType: string;
  readonly data: Buffer;
}

/** An HTTP answer: a status, extra headers, and a JSON body or raw bytes (neither for 204). */
export interface HttpReply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly file?: FileBody;
}

/** The answer to a request that succeeded with nothing to say. */
export const noContent: HttpReply = { status: 204 };

/** Discord's error body for an unknown route or resource. */
export function notFound(message = '404: Not Found', code = 0): HttpReply {
  return { status: 404, body: { message, code } };
}

/** Discord's 400 for a request body or query that fails validation, naming the bad field. */
export function invalidForm(field: string, message: string): HttpReply {
  return {
    status: 400,
    body: { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code: 'BASE_TYPE_INVALID', message }] } } },
  };
}

/** Discord's limit on a message's content, in characters. */
export const CONTENT_LIMIT = 2000;

/** Discord's 400 for message content over {@link CONTENT_LIMIT} characters, on a create or an edit. */
export function contentTooLong(): HttpReply {
  return {
    status: 400,
    body: {
      code: 50035,
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${CONTENT_LIMIT} or fewer in length.` }] } },
      message: 'Invalid Form Body',
    },
  };
}

/** Whether a body's `content` is longer than Discord takes (counted in code points, as Discord counts characters). */
export function isContentTooLong(content: unknown): boolean {
  return typeof content === 'string' && [...content].length > CONTENT_LIMIT;
}

/** Reads a request's whole body as UTF-8 text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The parsed JSON body, the raw text if it is not JSON, or undefined when empty. */
export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Writes a reply: raw bytes, JSON, or only the status. */
export function writeReply(res: ServerResponse, reply: HttpReply): void {
  const headers = reply.headers ?? {};
  if (reply.file !== undefined) {
    res.writeHead(reply.status, { ...headers, 'content-type': reply.file.contentType, 'content-length': reply.file.data.length });
    res.end(reply.file.data);
  } else if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
  } else {
    res.writeHead(reply.status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
  }
}
