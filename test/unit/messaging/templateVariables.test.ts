import {
  TemplateVariablesError,
  normaliseVariable,
  placeholderNumbers,
  renderTemplateText,
  resolveTemplateVariables,
  type TemplateContent,
  type TemplateVariablesInput,
} from '../../../src/messaging/templateVariables';

const template = (over: Partial<TemplateContent> = {}): TemplateContent => ({
  name: 'order_update',
  header: null,
  body: 'Hi {{1}}, order {{2}} arrives {{3}}.',
  buttons: [],
  ...over,
});

function refusal(t: TemplateContent, input: TemplateVariablesInput): TemplateVariablesError {
  try {
    resolveTemplateVariables(t, input);
  } catch (err) {
    if (err instanceof TemplateVariablesError) return err;
    throw err;
  }
  throw new Error('expected a TemplateVariablesError');
}

describe('placeholders and values', () => {
  it('counts distinct numbered placeholders in order', () => {
    expect(placeholderNumbers('{{2}} {{1}} {{1}} {{ 3 }}')).toEqual([1, 2, 3]);
    expect(placeholderNumbers('no placeholders {{name}}')).toEqual([]);
  });

  it('trims, folds inner newlines and tabs to one space, cuts at 1,024 characters', () => {
    expect(normaliseVariable('  Asha  ')).toBe('Asha');
    expect(normaliseVariable('line one\nline two\r\n\tthree')).toBe('line one line two three');
    expect(normaliseVariable('a \n\n b')).toBe('a b');
    expect(normaliseVariable(42)).toBe('42');
    expect(normaliseVariable('x'.repeat(2000))).toHaveLength(1024);
    expect(Array.from(normaliseVariable('😀'.repeat(1500)))).toHaveLength(1024);
  });
});

describe('body variables', () => {
  it('takes a positional array', () => {
    expect(resolveTemplateVariables(template(), { variables: ['Asha', 'A-1', 'Friday'] }).body).toEqual(['Asha', 'A-1', 'Friday']);
  });

  it('takes an object keyed by placeholder number from 1, in any key order', () => {
    expect(resolveTemplateVariables(template(), { variables: { '3': 'Friday', '1': 'Asha', '2': 7 } }).body).toEqual(['Asha', '7', 'Friday']);
  });

  it('takes a bare string only for a body with exactly one placeholder', () => {
    expect(resolveTemplateVariables(template({ body: 'Hello {{1}}' }), { variables: 'Asha' }).body).toEqual(['Asha']);
    const err = refusal(template(), { variables: 'Asha' });
    expect(err.message).toBe('Template order_update: the body has 3 placeholders but 1 variable was given.');
    expect(err.counts).toEqual({ expected: 3, received: 1 });
  });

  it('refuses a count mismatch, naming the component and both counts', () => {
    expect(refusal(template(), { variables: ['a', 'b'] }).message).toBe(
      'Template order_update: the body has 3 placeholders but 2 variables were given.',
    );
    expect(refusal(template(), {}).message).toBe('Template order_update: the body has 3 placeholders but 0 variables were given.');
    expect(refusal(template({ body: 'No placeholders' }), { variables: ['x'] }).message).toBe(
      'Template order_update: the body has 0 placeholders but 1 variable was given.',
    );
    expect(refusal(template(), { variables: { '1': 'a' } }).component).toBe('body');
  });

  it('refuses an object with the right count but wrong keys, as a shape mismatch', () => {
    const err = refusal(template(), { variables: { '0': 'a', '1': 'b', '2': 'c' } });
    expect(err.message).toBe('Template order_update: body variables given as an object must be keyed by placeholder number, 1 to 3.');
    expect(err.counts).toBeNull();
  });

  it('refuses nested values in the body', () => {
    expect(refusal(template({ body: 'Hi {{1}}' }), { variables: { '1': ['a'] } }).message).toBe(
      'Template order_update: body variables must be strings or numbers.',
    );
  });

  it('normalises every value', () => {
    expect(resolveTemplateVariables(template({ body: '{{1}}' }), { variables: ['  two\nlines '] }).body).toEqual(['two lines']);
  });
});

describe('header variables', () => {
  const withTextHeader = template({ header: { type: 'text', text: 'Reminder for {{1}}' }, body: 'On {{1}} at {{2}}' });

  it('numbers text-header placeholders from 1 within the header, apart from the body', () => {
    const resolved = resolveTemplateVariables(withTextHeader, { variables: ['Mon', '10:00'], header_variables: 'Asha' });
    expect(resolved).toEqual({ header: ['Asha'], body: ['Mon', '10:00'], buttons: [] });
    expect(resolveTemplateVariables(withTextHeader, { variables: ['Mon', '10:00'], header_variables: { '1': 'Asha' } }).header).toEqual(['Asha']);
  });

  it('refuses a missing header value, naming the header', () => {
    expect(refusal(withTextHeader, { variables: ['Mon', '10:00'] }).message).toBe(
      'Template order_update: the header has 1 placeholder but 0 variables were given.',
    );
  });

  it('needs nothing for an image or video header, and refuses values sent for one', () => {
    const media = template({ header: { type: 'image', media_url: 'https://cdn.test/a.png' }, body: 'Hi' });
    expect(resolveTemplateVariables(media, {}).header).toEqual([]);
    expect(refusal(media, { header_variables: ['x'] }).message).toBe(
      'Template order_update: the header has 0 placeholders but 1 variable was given.',
    );
  });
});

describe('button variables', () => {
  const oneUrl = template({
    body: 'Pay',
    buttons: [
      { type: 'quick_reply', text: 'Later' },
      { type: 'url', text: 'Pay', url: 'https://pay.test/{{1}}' },
    ],
  });
  const twoUrls = template({
    body: 'Pay',
    buttons: [
      { type: 'url', text: 'Pay', url: 'https://pay.test/{{1}}' },
      { type: 'url', text: 'Static', url: 'https://pay.test/help' },
      { type: 'url', text: 'Track', url: 'https://track.test/{{1}}' },
    ],
  });

  it('takes a string or an array for one URL button, at its position among all buttons', () => {
    expect(resolveTemplateVariables(oneUrl, { button_variables: 'inv-1' }).buttons).toEqual([{ index: 1, values: ['inv-1'] }]);
    expect(resolveTemplateVariables(oneUrl, { button_variables: ['inv-1'] }).buttons).toEqual([{ index: 1, values: ['inv-1'] }]);
  });

  it('takes an array in button order for several one-placeholder URL buttons', () => {
    expect(resolveTemplateVariables(twoUrls, { button_variables: ['inv-1', 'trk-9'] }).buttons).toEqual([
      { index: 0, values: ['inv-1'] },
      { index: 2, values: ['trk-9'] },
    ]);
  });

  it('takes an object keyed by button position from 0', () => {
    expect(resolveTemplateVariables(twoUrls, { button_variables: { '2': 'trk-9', '0': 'inv-1' } }).buttons).toEqual([
      { index: 0, values: ['inv-1'] },
      { index: 2, values: ['trk-9'] },
    ]);
    expect(resolveTemplateVariables(oneUrl, { button_variables: { '1': ['inv-1'] } }).buttons).toEqual([{ index: 1, values: ['inv-1'] }]);
  });

  it('refuses count mismatches, naming the buttons and both counts', () => {
    expect(refusal(twoUrls, { button_variables: 'inv-1' }).message).toBe(
      'Template order_update: the URL buttons have 2 placeholders but 1 variable was given.',
    );
    expect(refusal(oneUrl, {}).message).toBe('Template order_update: the URL buttons have 1 placeholder but 0 variables were given.');
    expect(refusal(template(), { variables: ['a', 'b', 'c'], button_variables: ['x'] }).message).toBe(
      'Template order_update: the URL buttons have 0 placeholders but 1 variable was given.',
    );
  });

  it('refuses an object keyed by a position that is not a URL button', () => {
    const err = refusal(twoUrls, { button_variables: { '0': 'inv-1', '1': 'trk-9' } });
    expect(err.message).toBe(
      'Template order_update: button variables given as an object must be keyed by the position of each URL button from 0 (0, 2).',
    );
    expect(err.component).toBe('buttons');
  });

  it('needs an object for several buttons when one has more than one placeholder', () => {
    const multi = template({
      body: 'x',
      buttons: [
        { type: 'url', text: 'A', url: 'https://a.test/{{1}}/{{2}}' },
        { type: 'url', text: 'B', url: 'https://b.test/{{1}}' },
      ],
    });
    expect(refusal(multi, { button_variables: ['a', 'b', 'c'] }).message).toMatch(/must be an object keyed by button position from 0/);
    expect(resolveTemplateVariables(multi, { button_variables: { '0': ['a', 'b'], '1': 'c' } }).buttons).toEqual([
      { index: 0, values: ['a', 'b'] },
      { index: 1, values: ['c'] },
    ]);
    expect(refusal(multi, { button_variables: { '0': 'a', '1': ['b', 'c'] } }).message).toBe(
      'Template order_update: the URL button at position 0 takes 2 values.',
    );
  });
});

describe('renderTemplateText', () => {
  it('fills the body, with a text header on its own line, for the transcript', () => {
    const t = template({ header: { type: 'text', text: 'For {{1}}' } });
    const values = resolveTemplateVariables(t, { variables: ['Asha', 'A-1', 'Friday'], header_variables: 'Asha' });
    expect(renderTemplateText(t, values)).toBe('For Asha\nHi Asha, order A-1 arrives Friday.');
  });
});
