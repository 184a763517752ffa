import { keyFromLabel, MAX_CAPTURE_PROMPT_CHARS, normaliseCapture, captureRequest } from '../../../src/calls/capture';
import { normaliseDetails } from '../../../src/calls/details';
import { readDestination } from '../../../src/calls/destination';

const capture = (input: unknown) => normaliseCapture(captureRequest.parse(input));

describe('capture rules (api-core §2)', () => {
  it('derives keys from labels, suffixing repeats with _2, _3', () => {
    const { capture: c } = capture({ fields: [{ label: 'Best time to call?' }, { label: 'Best time to call' }, { label: 'best time: to call!' }, { label: '2nd phone' }] });
    expect(c!.fields.map((f) => f.key)).toEqual(['best_time_to_call', 'best_time_to_call_2', 'best_time_to_call_3', 'field_2nd_phone']);
    expect(keyFromLabel('Ünïcode Label')).toBe('unicode_label');
    expect(keyFromLabel('x'.repeat(80))).toHaveLength(40);
  });

  it('keeps an explicit key and never derives one that clashes with it', () => {
    const { capture: c } = capture({ fields: [{ label: 'City' }, { label: 'Other', key: 'city' }] });
    expect(c!.fields.map((f) => f.key)).toEqual(['city_2', 'city']);
  });

  it('echoes every field key filled in, options merged case-insensitively, unusable display as auto', () => {
    const { capture: c } = capture({
      goal: ' Find a slot ',
      fields: [
        { label: 'Slot', type: 'choice', options: ['Morning', 'morning ', 'Evening', 'EVENING', 'Night'], display: 'pie' },
        { label: 'Notes', options: ['ignored', 'on text'], display: 'list', hint: '  ' },
      ],
    });
    expect(c).toEqual({
      goal: 'Find a slot',
      fields: [
        { key: 'slot', label: 'Slot', type: 'choice', hint: null, options: ['Morning', 'Evening', 'Night'], required: false, display: 'auto' },
        { key: 'notes', label: 'Notes', type: 'text', hint: null, options: [], required: false, display: 'list' },
      ],
      success: null,
    });
  });

  it.each([
    [{}, [], 'A capture needs a goal, at least one field, or both.'],
    [{ fields: [{ label: '   ' }] }, ['fields', 0, 'label'], 'A field needs a label.'],
    [{ fields: [{ label: 'A', type: 'choice', options: ['One', 'one'] }] }, ['fields', 0, 'options'], 'A choice field needs 2 to 12 distinct options (got 1).'],
    [{ fields: [{ label: 'A', key: 'k' }, { label: 'B', key: 'k' }] }, ['fields', 1, 'key'], 'Two fields have the key "k".'],
    [{ fields: [{ label: 'A' }], success: { field: 'missing', equals: 'yes' } }, ['success', 'field'], 'The success rule names "missing", which is not a field of the capture.'],
    [{ fields: [{ label: 'A' }], success: { field: 'a', equals: 'yes' } }, ['success', 'field'], 'A text field cannot be a success rule.'],
    [{ fields: [{ label: 'N', type: 'number' }], success: { field: 'n', equals: '3' } }, ['success', 'field'], 'A number field cannot be a success rule.'],
    [{ fields: [{ label: 'D', type: 'date' }], success: { field: 'd', equals: '2026-01-01' } }, ['success', 'field'], 'A date field cannot be a success rule.'],
    [{ fields: [{ label: 'Ok', type: 'yes_no' }], success: { field: 'ok', equals: 'maybe' } }, ['success', 'equals'], 'The success rule for "ok" must equal "yes" or "no".'],
    [{ fields: [{ label: 'R', type: 'rating' }], success: { field: 'r', equals: 6 } }, ['success', 'equals'], 'The success rule for "r" must equal 1 to 5.'],
    [{ fields: [{ label: 'C', type: 'choice', options: ['A', 'B'] }], success: { field: 'c', equals: 'Z' } }, ['success', 'equals'], 'The success rule for "c" must equal one of the options.'],
  ])('refuses %j at %j: %s', (input, path, message) => {
    expect(capture(input)).toEqual({ capture: null, issues: [{ path, message }] });
  });

  it('normalises success rules: yes/no, the option as written, a rating as text', () => {
    const fields = [
      { label: 'Ok', type: 'yes_no' },
      { label: 'Pick', type: 'multi_choice', options: ['Red', 'Blue'] },
      { label: 'Stars', type: 'rating' },
    ];
    expect(capture({ fields, success: { field: 'ok', equals: true } }).capture!.success).toEqual({ field: 'ok', equals: 'yes' });
    expect(capture({ fields, success: { field: 'pick', equals: 'blue' } }).capture!.success).toEqual({ field: 'pick', equals: 'Blue' });
    expect(capture({ fields, success: { field: 'stars', equals: 5 } }).capture!.success).toEqual({ field: 'stars', equals: '5' });
  });

  it('refuses a capture too long to hand to the agent, never cutting it', () => {
    const options = Array.from({ length: 12 }, (_, i) => `${'o'.repeat(55)}${i}`);
    const fields = Array.from({ length: 12 }, (_, i) => ({ label: `Question ${i}`, type: 'choice', options, hint: 'h'.repeat(240) }));
    const result = capture({ goal: 'g'.repeat(400), fields });
    expect(result.capture).toBeNull();
    expect(result.issues[0]!.message).toMatch(new RegExp(`too long to hand to the agent \\(\\d+ characters; at most ${MAX_CAPTURE_PROMPT_CHARS}\\)`));
    // Five such fields fit.
    expect(capture({ goal: 'g'.repeat(400), fields: fields.slice(0, 5) }).capture).not.toBeNull();
  });
});

describe('call details (api-core §4)', () => {
  it('cuts labels at 80 and values at 300, turns booleans to yes/no, drops empty pairs', () => {
    expect(
      normaliseDetails({ ['L'.repeat(100)]: 'v'.repeat(400), Paid: true, Late: false, Empty: '', '  ': 'x', Amount: 12.5, Nothing: null }),
    ).toEqual([
      { label: 'L'.repeat(80), value: 'v'.repeat(300) },
      { label: 'Paid', value: 'yes' },
      { label: 'Late', value: 'no' },
      { label: 'Amount', value: '12.5' },
    ]);
  });

  it('leaves out whole lines past 3,000 characters in total, keeping later ones that fit', () => {
    const details: Record<string, string> = {};
    for (let i = 0; i < 10; i++) details[`Line ${i}`] = 'x'.repeat(300);
    details.Short = 'ok';
    const lines = normaliseDetails(details);
    const total = lines.reduce((sum, l) => sum + `${l.label}: ${l.value}`.length, 0);
    expect(total).toBeLessThanOrEqual(3_000);
    expect(lines.map((l) => l.label)).toEqual(['Line 0', 'Line 1', 'Line 2', 'Line 3', 'Line 4', 'Line 5', 'Line 6', 'Line 7', 'Line 8', 'Short']);
    expect(lines.every((l) => l.value.length === 300 || l.value === 'ok')).toBe(true);
  });
});

describe('reading a destination against the workspace country', () => {
  it.each([
    ['+919811122233', 'IN', '+919811122233'],
    ['9811122233', 'IN', '+919811122233'],
    ['919811122233', 'IN', '+919811122233'],
    ['447911123456', 'IN', '+447911123456'],
    ['07911123456', 'GB', '+447911123456'],
  ])('%s in %s is %s', (to, country, e164) => {
    expect(readDestination(to, country)).toMatchObject({ kind: 'ok', e164 });
  });

  it('too short below 8 digits, unusable when no reading is valid', () => {
    expect(readDestination('+1234567', 'IN')).toEqual({ kind: 'too_short' });
    expect(readDestination('12345678', 'IN')).toEqual({ kind: 'unusable' });
  });
});
