import type { NoticeKind } from '../conversation/transport.js';

/** The notices that ask something of the person: what they sent was not done, or needs them. */
const NEEDS_ATTENTION: ReadonlySet<NoticeKind> = new Set(['failed', 'rejected', 'expired', 'manual_resolution', 'interrupted', 'suspended']);

/** SGR sequences: dim or yellow on, and back to normal. */
const DIM = ['\u001b[2m', '\u001b[22m'] as const;
const YELLOW = ['\u001b[33m', '\u001b[39m'] as const;

/**
 * A notice as the text console prints it, so that it never reads as a reply (`bot> …`): marked
 * `-- [kind]`, each further line indented under the first, ending in a newline. On a terminal it
 * is dimmed, or yellow when it asks something of the person; off one it has no control sequences.
 * `text` must already be safe to print.
 */
export function noticeText(notice: NoticeKind, text: string, tty: boolean): string {
  const mark = `-- [${notice}] `;
  const body = text.split('\n').join(`\n${' '.repeat(3)}`);
  const line = `${mark}${body}`;
  if (!tty) return `${line}\n`;
  const [on, off] = NEEDS_ATTENTION.has(notice) ? YELLOW : DIM;
  return `${on}${line}${off}\n`;
}
