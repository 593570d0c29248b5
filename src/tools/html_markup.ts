/**
 * A page's markup rewritten into a form an HTML parser handles in linear time. A parser keeps the
 * open elements on a stack, and hostile markup (a megabyte of `<b>`) makes that stack, and the
 * parse, quadratic. This pass reads the markup with patterns that each stop at the next `<`, and
 * writes it out again well formed: every tag it knows closed in order, no element nested deeper
 * than MAX_DEPTH, every other `<` escaped as text, attributes dropped but a link's address.
 */

const MAX_DEPTH = 100;
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const HIDDEN = /<(script|style|noscript|template|title|textarea)\b[^<>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
const TITLE = /<title\b[^<>]*>([\s\S]*?)(?:<\/title\s*>|$)/i;
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)([^<>]*)>|<[!?/][^<>]*>/g;
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>`]+))/i;
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/** A page's title and body markup, ready for a parser. */
export interface BoundedMarkup {
  /** The text inside `<title>`, entities not yet decoded; empty without one. */
  readonly title: string;
  /** The rest of the page without comments, scripts, styles and the title, well formed and at most MAX_DEPTH deep. */
  readonly body: string;
}

/** The markup of `html` bounded as described above; a link's address is made absolute against `pageUrl`. */
export function boundMarkup(html: string, pageUrl: URL): BoundedMarkup {
  const withoutComments = html.replace(COMMENT, ' ');
  const title = (TITLE.exec(withoutComments)?.[1] ?? '').replace(TAG, ' ').replaceAll('<', '&lt;');
  const source = withoutComments.replace(HIDDEN, ' ');
  const open: string[] = [];
  let body = '';
  let from = 0;
  for (const tag of source.matchAll(TAG)) {
    body += source.slice(from, tag.index).replaceAll('<', '&lt;');
    from = tag.index + tag[0].length;
    const [, slash, rawName, attributes = ''] = tag;
    if (rawName === undefined) continue;
    const name = rawName.toLowerCase();
    if (slash === '/') {
      const at = open.lastIndexOf(name);
      if (at === -1) continue;
      for (const closed of open.splice(at).reverse()) body += `</${closed}>`;
    } else if (VOID.has(name)) {
      body += `<${name}>`;
    } else if (!attributes.trimEnd().endsWith('/') && open.length < MAX_DEPTH) {
      open.push(name);
      body += name === 'a' ? `<a${linkAttribute(attributes, pageUrl)}>` : `<${name}>`;
    }
  }
  body += source.slice(from).replaceAll('<', '&lt;');
  for (const closed of open.reverse()) body += `</${closed}>`;
  return { title, body };
}

/** ` href="…"` with the link's absolute http(s) or mailto address, or nothing (for a fragment of the page itself too). */
function linkAttribute(attributes: string, pageUrl: URL): string {
  const match = HREF.exec(attributes);
  const href = (match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim();
  if (href === '' || href.startsWith('#') || !URL.canParse(href, pageUrl.href)) return '';
  const url = new URL(href, pageUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'mailto:') return '';
  return ` href="${url.href.replaceAll('"', '%22')}"`;
}
