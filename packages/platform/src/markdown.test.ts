import { expect } from 'chai';
import MarkdownIt from 'markdown-it';
import { escapeMarkdown, MAX_TEXT } from './markdown';

// GitHub-like rendering: raw HTML allowed and bare addresses linked, as the platforms do.
const md = new MarkdownIt({ html: true, linkify: true });
const render = (text: string) => md.render(escapeMarkdown(text)).replace(/^<p>|<\/p>\n$/g, '');
const visible = (html: string) =>
  html
    .replace(/\u200B/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

describe('platform: escapeMarkdown', () => {
  const hostile = [
    '[click me](https://evil.example/steal)',
    '![pixel](https://evil.example/p.png)',
    '<img src=x onerror=alert(1)>',
    '<script>alert(1)</script>',
    '<a href="https://evil.example">x</a>',
    'see https://evil.example/x and www.evil.example',
    '<https://evil.example>',
    'mail me: a@evil.example',
    '[ref]: https://evil.example',
    '`code` **bold** _em_ ~~gone~~ | table |',
    '&lt;b&gt; entity &#64;admin',
    'back\\slash \\[not a link\\](x)',
    '- not a list',
    '1. not a list either',
    '# not a heading',
    '$x^2$ not math',
  ];
  for (const text of hostile)
    it(`renders as its own text, no link, image or HTML: ${text}`, () => {
      const html = render(text);
      expect(html).not.to.match(/<(a|img|script|code|strong|em|s|h1|ul|ol|li)\b/i);
      expect(visible(html)).to.equal(text);
    });

  it('breaks mentions and references so the platform neither notifies nor links', () => {
    const escaped = escapeMarkdown('ping @admin and @org/team about #12 and !34');
    expect(escaped).not.to.match(/@[a-z]/i);
    expect(escaped).not.to.match(/#[0-9]/);
    expect(escaped).not.to.match(/![0-9]/);
  });

  it('keeps a line break or control character from starting a new block', () => {
    const html = md.render(escapeMarkdown('title\n# heading\n\n- item\r\n> quote\u0000'));
    expect(html).not.to.match(/<(h1|ul|li|blockquote)\b/);
    expect(html.match(/<p>/g)).to.have.length(1);
  });

  it('leaves path characters as they are', () => {
    expect(escapeMarkdown('src/app-main.py:3')).to.equal('src/app-main.py:3');
  });

  it('bounds the length', () => {
    expect(escapeMarkdown('a'.repeat(MAX_TEXT * 3)).length).to.equal(MAX_TEXT);
  });
});
