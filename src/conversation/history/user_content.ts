import type { ContentBlock } from '../../llm/protocol.js';
import type { AttachmentSkipReason, MessageAttachment } from './message_attachment.js';
import { assertNever } from '../../core/assert_never.js';
import { nameOnOneLine } from '../prompt_placeholders.js';

/**
 * The content of a turn's user message: who wrote it and what, then each attachment in order. The
 * author's name, when the transport gave one, leads the text as `[Ana]: ` (see {@link authorFrame});
 * a text file becomes a text block that names it and fences its content; an image becomes an
 * image block, announced by name, when the model accepts images (`vision`); anything left out
 * becomes a short text block saying what it was and why, so the model can tell the user. Without
 * attachments the content is that one text block.
 */
export function userContent(text: string, attachments: readonly MessageAttachment[], vision: boolean, author?: string): ContentBlock[] {
  const frame = authorFrame(author);
  const said = frame === undefined ? text : text.trim() === '' ? frame : `${frame} ${text}`;
  if (attachments.length === 0) return [{ type: 'text', text: said }];
  const blocks = attachments.flatMap((attachment) => attachmentBlocks(attachment, vision));
  return said.trim() === '' ? blocks : [{ type: 'text', text: said }, ...blocks];
}

/**
 * How a message names its author to the model (DESIGN §4.2): `[Ana]:`, the name on one line and
 * bounded as the prompt's names are, its square brackets made round so that no name can close the
 * frame early and spell out a second author; `undefined` for no name.
 */
function authorFrame(name: string | undefined): string | undefined {
  const shown = nameOnOneLine(name).replaceAll('[', '(').replaceAll(']', ')');
  return shown === '' ? undefined : `[${shown}]:`;
}

/** The blocks one attachment becomes. */
function attachmentBlocks(attachment: MessageAttachment, vision: boolean): ContentBlock[] {
  const name = displayName(attachment.name);
  switch (attachment.kind) {
    case 'text':
      return [{ type: 'text', text: `The user attached the file ${name}:\n\n${fenced(attachment.text, attachment.name)}` }];
    case 'image':
      if (!vision) return [leftOut(name, 'vision_off')];
      return [
        { type: 'text', text: `The user attached the image ${name}:` },
        { type: 'image', mediaType: attachment.mediaType, source: { kind: 'base64', data: attachment.data } },
      ];
    case 'skipped':
      return [leftOut(name, attachment.reason, attachment.limitBytes)];
    default:
      return assertNever(attachment);
  }
}

function leftOut(name: string, reason: AttachmentSkipReason, limitBytes?: number): ContentBlock {
  return { type: 'text', text: `The user attached ${name}, but it is not included here: ${why(reason, limitBytes)}. Tell the user if it matters for the answer.` };
}

function why(reason: AttachmentSkipReason, limitBytes: number | undefined): string {
  switch (reason) {
    case 'too_large':
      return limitBytes === undefined ? 'it is larger than the size limit for attachments' : `it is larger than the ${formatBytes(limitBytes)} limit for attachments of its kind`;
    case 'unsupported_type':
      return 'its file type is not supported (only PNG, JPEG, WebP and GIF images and UTF-8 text files are)';
    case 'download_failed':
      return 'it could not be downloaded';
    case 'vision_off':
      return 'this model is not set up to see images';
    default:
      return assertNever(reason);
  }
}

/** A file name as it is quoted to the model: one line, no backticks, not endless. */
function displayName(name: string): string {
  const clean = name.replace(/[`\p{Cc}]/gu, '_').slice(0, 200);
  return `\`${clean === '' ? 'unnamed' : clean}\``;
}

/** `text` in a code fence longer than any run of backticks inside it, tagged with the file's extension. */
function fenced(text: string, fileName: string): string {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const extension = /\.([A-Za-z0-9+-]{1,15})$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
  return `${fence}${extension}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

/** A byte count as people read limits: `8 MB`, `100 KB`, `1.5 MB`. */
function formatBytes(bytes: number): string {
  const mib = 1024 * 1024;
  return bytes >= mib ? `${Number((bytes / mib).toFixed(1))} MB` : `${Number((bytes / 1024).toFixed(1))} KB`;
}
