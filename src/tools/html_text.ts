/**
 * HTML to readable text for the model: no parser, only a few linear passes. Every pattern stops
 * at the next `<` or matches through to the end, so hostile markup cannot make it quadratic.
 */

const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const HIDDEN = /<(script|style|noscript|title)\b[^<>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
const TITLE = /<title\b[^<>]*>([\s\S]*?)(?:<\/title\s*>|$)/i;
const BLOCK_TAG =
  /<\/?(?:p|br|div|li|h[1-6]|tr|ul|ol|dl|dt|dd|table|thead|tbody|tfoot|section|article|header|footer|nav|main|aside|blockquote|pre|hr|form|figure|figcaption|address|details|summary)\b[^<>]*>/gi;
const CELL_TAG = /<\/?(?:td|th)\b[^<>]*>/gi;
const OTHER_TAG = /<\/?[a-zA-Z][^<>]*>|<![^<>]*>|<\?[^<>]*>/g;
const ENTITY = /&(#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,7}|[a-zA-Z]+);/g;

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** The character a numeric reference stands for; U+FFFD for NUL, surrogates and out-of-range values. */
function fromCodePoint(codePoint: number): string {
  const valid = codePoint > 0 && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff);
  return String.fromCodePoint(valid ? codePoint : 0xfffd);
}

/** Decodes `&amp; &lt; &gt; &quot; &apos; &nbsp;` and numeric references in one pass; others stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(ENTITY, (whole, body: string) => {
    if (body.startsWith('#x') || body.startsWith('#X')) return fromCodePoint(Number.parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return fromCodePoint(Number.parseInt(body.slice(1), 10));
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** Trims every line, collapses runs of spaces and drops empty lines. */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[^\S\n]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * The readable text of an HTML page: the `<title>` first (when there is one), then the body
 * without scripts, styles, `<noscript>`, comments and tags, block elements as line breaks,
 * common entities decoded, whitespace collapsed.
 */
export function htmlToText(html: string): string {
  const withoutComments = html.replace(COMMENT, ' ');
  const title = tidy(decodeEntities((TITLE.exec(withoutComments)?.[1] ?? '').replace(OTHER_TAG, ' ').replace(/\s+/g, ' ')));
  const body = withoutComments
    .replace(HIDDEN, ' ')
    .replace(/\s+/g, ' ')
    .replace(BLOCK_TAG, '\n')
    .replace(CELL_TAG, ' ')
    .replace(OTHER_TAG, '');
  const text = tidy(decodeEntities(body));
  return title === '' ? text : text === '' ? title : `${title}\n\n${text}`;
}
