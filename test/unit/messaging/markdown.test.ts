import { markdownToWhatsApp } from '../../../src/messaging/markdown';

describe('markdownToWhatsApp (api-core §4, text)', () => {
  it.each([
    ['**bold** text', '*bold* text'],
    ['__bold__ text', '*bold* text'],
    ['See [the docs](https://example.com/docs) now', 'See the docs: https://example.com/docs now'],
    ['[https://example.com](https://example.com)', 'https://example.com'],
    ['[Pay](https://pay.example.com/p/1 "title")', 'Pay: https://pay.example.com/p/1'],
    ['[**Pay now**](https://pay.example.com)', '*Pay now*: https://pay.example.com'],
    ['<https://example.com>', 'https://example.com'],
    ['*em* and _em_', '_em_ and _em_'],
    ['~~gone~~', '~gone~'],
    ['# Title\nbody', '*Title*\nbody'],
    ['## **Big** news ##', '*Big news*'],
  ])('%j becomes %j', (input, output) => {
    expect(markdownToWhatsApp(input)).toBe(output);
  });

  it.each([
    'plain text, nothing to do',
    '2 * 3 * 4 = 24',
    'a*b*c',
    'snake_case_name and file_name.txt',
    '* first\n* second',
    '- first\n- second',
    'Price: $5 (approx)',
    '',
  ])('leaves %j as it is', (input) => {
    expect(markdownToWhatsApp(input)).toBe(input);
  });

  it('leaves code spans and fenced blocks exactly as written', () => {
    expect(markdownToWhatsApp('`**not bold**` but **bold**')).toBe('`**not bold**` but *bold*');
    expect(markdownToWhatsApp('```\n**keep** [a](b)\n```')).toBe('```\n**keep** [a](b)\n```');
  });

  it('does not read a link inside its own address again', () => {
    expect(markdownToWhatsApp('[a](https://x.test/**y**)')).toBe('a: https://x.test/**y**');
  });
});
