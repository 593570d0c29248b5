import { describe, expect, it } from 'vitest';
import { decodeEntities, htmlToText } from '../../src/tools/html_text.js';

describe('htmlToText', () => {
  it('puts the title first and renders the body as lines', () => {
    const html = `<!DOCTYPE html>
<html><head><title>  The   Page </title><meta charset="utf-8"></head>
<body><h1>Heading</h1><p>First <b>bold</b> paragraph.</p><p>Second<br>line</p>
<div>A div</div><ul><li>one</li><li>two</li></ul>
<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table></body></html>`;
    expect(htmlToText(html)).toBe('The Page\n\nHeading\nFirst bold paragraph.\nSecond\nline\nA div\none\ntwo\na b\nc d');
  });

  it('drops scripts, styles, noscript and comments with everything inside them', () => {
    const html = `<p>kept</p><script type="text/javascript">var x = "<p>not text</p>";</script>
<style>p { color: red }</style><noscript>enable JS</noscript><!-- a <p>comment</p> --><SCRIPT>alert(1)</SCRIPT ><p>also kept</p>`;
    expect(htmlToText(html)).toBe('kept\nalso kept');
  });

  it('drops an unterminated script or comment to the end', () => {
    expect(htmlToText('<p>before</p><script>never closed <p>x</p>')).toBe('before');
    expect(htmlToText('<p>before</p><!-- never closed <p>x</p>')).toBe('before');
  });

  it('decodes the common entities once, after the tags are gone', () => {
    expect(htmlToText('<p>Fish &amp; chips &lt;b&gt; &quot;q&quot; it&#39;s&nbsp;here &#169; &#x2603; &amp;lt;</p>')).toBe(
      'Fish & chips <b> "q" it\'s here © ☃ &lt;',
    );
  });

  it('decodes entities in the title', () => {
    expect(htmlToText('<title>Q&amp;A</title><p>x</p>')).toBe('Q&A\n\nx');
  });

  it('collapses whitespace, including newlines in the source, and drops empty lines', () => {
    expect(htmlToText('<div>\n\n  a \t  b\n c  </div>\n\n<div>   </div><p>d</p>')).toBe('a b c\nd');
  });

  it('keeps a lone < that is not a tag', () => {
    expect(htmlToText('<p>1 < 2 and 3 > 2</p>')).toBe('1 < 2 and 3 > 2');
  });

  it('gives the title alone when the body has no text, and the body alone without a title', () => {
    expect(htmlToText('<title>Only</title>')).toBe('Only');
    expect(htmlToText('<p>no title</p>')).toBe('no title');
    expect(htmlToText('')).toBe('');
  });

  it('handles hostile unterminated markup in linear time', () => {
    const hostile = '<a'.repeat(200_000) + '<script' + '<title'.repeat(50_000) + '<!--';
    expect(typeof htmlToText(hostile)).toBe('string');
  });
});

describe('decodeEntities', () => {
  it.each([
    ['&amp;', '&'],
    ['&lt;&gt;', '<>'],
    ['&quot;&#39;&apos;', `"''`],
    ['a&nbsp;b', 'a b'],
    ['&#65;&#x42;&#X43;', 'ABC'],
    ['&#128512;', '😀'],
    ['&#0;', '\uFFFD'],
    ['&#xD800;', '\uFFFD'],
    ['&#x110000;', '\uFFFD'],
    ['&unknown; &amp', '&unknown; &amp'],
    ['&amp;amp;', '&amp;'],
  ])('%s → %s', (encoded, decoded) => {
    expect(decodeEntities(encoded)).toBe(decoded);
  });
});
