import { compile, type SelectorDefinition } from 'html-to-text';
import { boundMarkup } from './html_markup.js';

const HEADINGS: SelectorDefinition[] = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));
const DROPPED: SelectorDefinition[] = ['nav', 'img', 'svg', 'button', 'select', 'iframe', 'head'].map((selector) => ({ selector, format: 'skip' }));

const bodyText = compile({
  wordwrap: false,
  selectors: [
    ...DROPPED,
    ...HEADINGS,
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, linkBrackets: ['[', ']'] } },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, maxColumnWidth: 80 } },
  ],
});
const plainText = compile({ wordwrap: false, baseElements: { selectors: ['body'], returnDomByDefault: true } });

/** Ends every line at its last visible character and keeps at most one empty line between paragraphs. */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The readable text of an HTML page: the `<title>` first (when there is one), then the body as
 * paragraphs, lists and tables, without navigation, scripts, styles, images and comments, every
 * entity decoded, a link as its text followed by its absolute address in brackets (`text [url]`).
 * The page is parsed by html-to-text, after boundMarkup made its markup safe to parse.
 */
export function htmlToText(html: string, pageUrl: URL): string {
  const { title, body } = boundMarkup(html, pageUrl);
  const heading = tidy(plainText(title)).replace(/\s+/g, ' ');
  const text = tidy(bodyText(body));
  return heading === '' ? text : text === '' ? heading : `${heading}\n\n${text}`;
}
