import { terminalSafe } from '../../console/terminal_text.js';

/**
 * Rows as a plain-text table with a header, each column as wide as its widest cell, two spaces
 * between columns, the last column not padded. Every cell is made safe for a terminal and kept
 * on one line.
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [headers, ...rows].map((row) => row.map(oneLine));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => [...(row[column] ?? '')].length)));
  const lines = cells.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell + ' '.repeat((widths[column] ?? 0) - [...cell].length)))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** `text` on one line, safe for a terminal: line breaks become spaces, control characters and escape sequences are dropped. */
export function oneLine(text: string): string {
  return terminalSafe(text.replace(/\s*[\r\n]+\s*/g, ' '));
}

/** `text` on one line and safe for a terminal, cut to `max` characters with a note of how much was left out. */
export function shortened(text: string, max: number): string {
  const safe = oneLine(text);
  const chars = [...safe];
  return chars.length <= max ? safe : `${chars.slice(0, max).join('')}… (${chars.length - max} more characters; --json shows all)`;
}

/** An age as people read it: `45s`, `3m`, `2h`, `4d`. */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.floor(seconds))}s`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
