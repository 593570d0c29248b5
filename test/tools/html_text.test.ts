import { describe, expect, it } from 'vitest';
import { htmlToText } from '../../src/tools/html_text.js';

const PAGE = new URL('https://example.org/guide/milk.html');
const text = (html: string): string => htmlToText(html, PAGE);

describe('htmlToText', () => {
  it('puts the title first and renders the body as paragraphs, lists and tables', () => {
    const html = `<!DOCTYPE html>
<html><head><title>  The   Page </title><meta charset="utf-8"></head>
<body><h1>Heading</h1><p>First <b>bold</b> paragraph.</p><p>Second<br>line</p>
<div>A div</div><ul><li>one</li><li>two</li></ul>
<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table><pre>def pour():\n    return 'milk'</pre></body></html>`;
    expect(text(html)).toBe("The Page\n\nHeading\n\nFirst bold paragraph.\n\nSecond\nline\n\nA div\n- one\n- two\n\na   b\nc   d\n\ndef pour():\n    return 'milk'");
  });

  it('decodes every named and numeric entity, in the body and in the title', () => {
    const html = '<title>Caf&eacute; &amp; co</title><p>caf&eacute; &mdash; it&rsquo;s&hellip; 5&euro; &copy; &#233; &#x2014; &#128512; &lt;b&gt; &amp;lt;</p>';
    expect(text(html)).toBe('Café & co\n\ncafé — it’s… 5€ © é — 😀 <b> &lt;');
  });

  it('keeps a link as its text followed by its absolute address, and a bare address once', () => {
    const html =
      `<p>See <a href="cream.html?a=1&amp;b=2">the cream page</a>, <a href="/about">about us</a>, <a ` +
      `href="https://milk.example/">https://milk.example/</a> and <a ` +
      `href="mailto:dairy@example.org">write</a>.</p><p><a href='butter.html'>butter</a> <a href=/cheese>cheese</a> ` +
      `<a>no address</a></p>`;
    expect(text(html)).toBe(
      'See the cream page [https://example.org/guide/cream.html?a=1&b=2], about us [https://example.org/about], https://milk.example/ and write [dairy@example.org].\n\n' +
        'butter [https://example.org/guide/butter.html] cheese [https://example.org/cheese] no address',
    );
  });

  it('keeps the text of a link to a script or a fragment, without its address', () => {
    expect(text('<p><a href="javascript:alert(1)">click</a> or <a href="#top">top</a></p>')).toBe('click or top');
  });

  it('drops navigation, scripts, styles, noscript, images and comments with everything inside them', () => {
    const html = `<nav><a href="/">Home</a> | <a href="/shop">Shop</a></nav><p>kept</p><script type="text/javascript">var x = "<p>not text</p>";</script>
<style>p { color: red }</style><noscript>enable JS</noscript><!-- a <p>comment</p> --><img src="cow.png" alt="a cow"><SCRIPT>alert(1)</SCRIPT ><p>also kept</p>`;
    expect(text(html)).toBe('kept\n\nalso kept');
  });

  it('drops an unterminated script or comment to the end', () => {
    expect(text('<p>before</p><script>never closed <p>x</p>')).toBe('before');
    expect(text('<p>before</p><!-- never closed <p>x</p>')).toBe('before');
  });

  it('collapses whitespace, including newlines in the source, and keeps at most one empty line', () => {
    expect(text('<div>\n\n  a \t  b\n c  </div>\n\n<div>   </div><div>d</div><p></p><p></p><p>e</p>')).toBe('a b c\n\nd\n\ne');
  });

  it('keeps a lone < that is not a tag', () => {
    expect(text('<p>1 < 2 and 3 > 2</p>')).toBe('1 < 2 and 3 > 2');
  });

  it('gives the title alone when the body has no text, and the body alone without a title', () => {
    expect(text('<title>Only</title>')).toBe('Only');
    expect(text('<p>no title</p>')).toBe('no title');
    expect(text('')).toBe('');
  });

  it('handles hostile unterminated markup', () => {
    const hostile = '<a'.repeat(200_000) + '<script' + '<title'.repeat(50_000) + '<!--';
    expect(typeof text(hostile)).toBe('string');
  });

  it('reads the text after a page nested 100,000 elements deep, and after stray closing tags', () => {
    expect(text(`${'<b>'.repeat(100_000)}deep${'</i>'.repeat(1_000)} end`)).toBe('deep end');
    expect(text(`${'<p><div></p>'.repeat(10_000)}flat`)).toBe('flat');
  });
});
