import { applySuccessRule, buildResult, coerceAnswer, failedResult, isCalendarDate } from '../../../src/calls/result';
import type { Capture, CaptureField, CaptureFieldType, Reading } from '../../../src/calls/types';
import { pendingResult } from '../../../src/calls/types';

function field(type: CaptureFieldType, extra: Partial<CaptureField> = {}): CaptureField {
  return { key: extra.key ?? type, label: extra.label ?? type, type, hint: null, options: [], required: false, display: 'auto', ...extra };
}

const colours = field('choice', { key: 'colour', options: ['Red', 'Dark blue', 'Green'] });
const extras = field('multi_choice', { key: 'extras', options: ['Wifi', 'Parking', 'Breakfast'] });

describe('coerceAnswer', () => {
  it.each<[string, CaptureField, unknown, unknown]>([
    ['text: a string, trimmed', field('text'), '  Around noon  ', 'Around noon'],
    ['text: exactly 500 characters kept', field('text'), 'a'.repeat(500), 'a'.repeat(500)],
    ['text: longer than 500 cut at 500', field('text'), `${'b'.repeat(499)}cdef`, `${'b'.repeat(499)}c`],
    ['text: cut never splits an emoji', field('text'), '😀'.repeat(501), '😀'.repeat(500)],
    ['yes_no: true', field('yes_no'), true, true],
    ['yes_no: false', field('yes_no'), false, false],
    ['yes_no: "Yes"', field('yes_no'), 'Yes', true],
    ['yes_no: " no "', field('yes_no'), ' no ', false],
    ['yes_no: "true"', field('yes_no'), 'true', true],
    ['choice: as written', colours, 'Red', 'Red'],
    ['choice: case-insensitive, the option spelling returned', colours, ' dark BLUE ', 'Dark blue'],
    ['multi_choice: options in capture order, matched case-insensitively', extras, ['breakfast', 'WIFI'], ['Wifi', 'Breakfast']],
    ['multi_choice: unknowns dropped, duplicates merged', extras, ['Parking', 'pool', 'parking'], ['Parking']],
    ['multi_choice: one option alone is a list of one', extras, 'wifi', ['Wifi']],
    ['number: integer', field('number'), 3, 3],
    ['number: decimal', field('number'), 2.5, 2.5],
    ['number: negative', field('number'), -4, -4],
    ['number: numeric string', field('number'), ' 12.50 ', 12.5],
    ['number: whole decimal is an integer', field('number'), 7.0, 7],
    ['rating: 1', field('rating'), 1, 1],
    ['rating: 5', field('rating'), 5, 5],
    ['rating: "4"', field('rating'), '4', 4],
    ['date: a real date', field('date'), '2024-02-29', '2024-02-29'],
  ])('%s', (_name, f, raw, expected) => {
    expect(coerceAnswer(f, raw)).toEqual(expected);
  });

  it.each<[string, CaptureField, unknown]>([
    ['text: blank', field('text'), '   '],
    ['text: a number', field('text'), 42],
    ['text: null', field('text'), null],
    ['yes_no: "maybe"', field('yes_no'), 'maybe'],
    ['yes_no: 1', field('yes_no'), 1],
    ['choice: not an option', colours, 'Purple'],
    ['choice: an array', colours, ['Red']],
    ['choice: a prefix of an option', colours, 'Dark'],
    ['multi_choice: nothing known', extras, ['Pool', 'Gym']],
    ['multi_choice: empty', extras, []],
    ['multi_choice: a number', extras, 2],
    ['number: words', field('number'), 'three'],
    ['number: NaN', field('number'), Number.NaN],
    ['number: Infinity', field('number'), Number.POSITIVE_INFINITY],
    ['number: digits with text', field('number'), '3 kids'],
    ['number: boolean', field('number'), true],
    ['rating: 0', field('rating'), 0],
    ['rating: 6', field('rating'), 6],
    ['rating: 4.5', field('rating'), 4.5],
    ['rating: "four"', field('rating'), 'four'],
    ['date: 30 February', field('date'), '2025-02-30'],
    ['date: 29 February of a common year', field('date'), '2023-02-29'],
    ['date: month 13', field('date'), '2025-13-01'],
    ['date: a timestamp', field('date'), '2025-03-04T10:00:00Z'],
    ['date: another format', field('date'), '04/03/2025'],
    ['date: not a string', field('date'), 20250304],
  ])('%s does not fit', (_name, f, raw) => {
    expect(coerceAnswer(f, raw)).toBeUndefined();
  });

  it('knows calendar dates, leap years included', () => {
    expect(isCalendarDate('2000-02-29')).toBe(true);
    expect(isCalendarDate('1900-02-29')).toBe(false);
    expect(isCalendarDate('0000-01-01')).toBe(false);
    expect(isCalendarDate('2025-04-31')).toBe(false);
  });
});

function reading(over: Partial<Reading> = {}): Reading {
  return {
    disposition: 'completed',
    goal_met: 'yes',
    summary: 'The person answered every question.',
    sentiment: 'positive',
    next_step: 'none',
    next_step_reason: null,
    answers: {},
    ...over,
  };
}

const READ_AT = '2025-03-05T10:01:00.000Z';

describe('buildResult from a reading', () => {
  const capture: Capture = {
    goal: 'Confirm the visit',
    fields: [
      field('yes_no', { key: 'attending', required: true }),
      field('text', { key: 'notes' }),
      field('date', { key: 'day', required: true }),
    ],
    success: { field: 'attending', equals: 'yes' },
  };

  it('types the answers, counts them and keeps unanswered keys absent', () => {
    const result = buildResult(reading({ answers: { attending: 'yes', notes: '  Side door  ', day: '2025-03-07', stranger: 'x' } }), capture, READ_AT);
    expect(result).toEqual({
      state: 'ready',
      disposition: 'completed',
      goal_met: 'yes',
      success: true,
      summary: 'The person answered every question.',
      sentiment: 'positive',
      next_step: 'none',
      next_step_reason: null,
      fields: { attending: true, notes: 'Side door', day: '2025-03-07' },
      captured: 3,
      expected: 3,
      missing_required: [],
      read_at: READ_AT,
    });
  });

  it('drops an answer that does not fit and never reports completed while a required answer is missing', () => {
    const result = buildResult(reading({ answers: { attending: true, notes: null, day: '2025-02-30' } }), capture, READ_AT);
    expect(result.fields).toEqual({ attending: true });
    expect(Object.keys(result.fields)).not.toContain('notes');
    expect(result).toMatchObject({ disposition: 'partial', captured: 1, expected: 3, missing_required: ['day'] });
  });

  it('keeps the dispositions other than completed as read, even with required answers missing', () => {
    const result = buildResult(reading({ disposition: 'callback_requested', goal_met: 'unclear', next_step: 'call_back', next_step_reason: 'Asked for Friday.' }), capture, READ_AT);
    expect(result).toMatchObject({ disposition: 'callback_requested', missing_required: ['attending', 'day'], next_step: 'call_back', next_step_reason: 'Asked for Friday.' });
  });

  it('fills a missing next_step_reason and drops one when next_step is none', () => {
    expect(buildResult(reading({ next_step: 'call_back', next_step_reason: '  ' }), null, READ_AT).next_step_reason).toBe('Call again to finish the conversation.');
    expect(buildResult(reading({ next_step: 'human_follow_up', next_step_reason: null }), null, READ_AT).next_step_reason).toBe('A team member should follow up.');
    expect(buildResult(reading({ next_step: 'send_whatsapp', next_step_reason: null }), null, READ_AT).next_step_reason).toBe('Follow up on WhatsApp.');
    expect(buildResult(reading({ next_step: 'none', next_step_reason: 'Nothing to do.' }), null, READ_AT).next_step_reason).toBeNull();
  });

  it('reads a call without a capture: no fields, nothing expected, no success', () => {
    const result = buildResult(reading({ answers: { anything: 'x' } }), null, READ_AT);
    expect(result).toMatchObject({ state: 'ready', fields: {}, captured: 0, expected: 0, missing_required: [], success: null, disposition: 'completed' });
  });

  it('turns a blank summary into null', () => {
    expect(buildResult(reading({ summary: '  ' }), null, READ_AT).summary).toBeNull();
  });
});

describe('the success rule', () => {
  const rated = (equals: string): Capture => ({ goal: null, fields: [field('rating', { key: 'score' })], success: { field: 'score', equals } });

  it.each<[string, Capture, Record<string, unknown>, boolean | null]>([
    ['yes_no equals yes, answered yes', { goal: null, fields: [field('yes_no', { key: 'ok' })], success: { field: 'ok', equals: 'yes' } }, { ok: true }, true],
    ['yes_no equals yes, answered no', { goal: null, fields: [field('yes_no', { key: 'ok' })], success: { field: 'ok', equals: 'yes' } }, { ok: false }, false],
    ['yes_no equals no, answered no', { goal: null, fields: [field('yes_no', { key: 'ok' })], success: { field: 'ok', equals: 'no' } }, { ok: 'no' }, true],
    ['yes_no unanswered', { goal: null, fields: [field('yes_no', { key: 'ok' })], success: { field: 'ok', equals: 'yes' } }, {}, null],
    ['choice, the option', { goal: null, fields: [colours], success: { field: 'colour', equals: 'Dark blue' } }, { colour: 'dark blue' }, true],
    ['choice, another option', { goal: null, fields: [colours], success: { field: 'colour', equals: 'Dark blue' } }, { colour: 'Red' }, false],
    ['choice, an answer that does not fit counts as unanswered', { goal: null, fields: [colours], success: { field: 'colour', equals: 'Red' } }, { colour: 'Pink' }, null],
    ['multi_choice, the option among the answers', { goal: null, fields: [extras], success: { field: 'extras', equals: 'Parking' } }, { extras: ['Wifi', 'Parking'] }, true],
    ['multi_choice, the option not among them', { goal: null, fields: [extras], success: { field: 'extras', equals: 'Parking' } }, { extras: ['Wifi'] }, false],
    ['multi_choice unanswered', { goal: null, fields: [extras], success: { field: 'extras', equals: 'Parking' } }, { extras: [] }, null],
    ['rating equals 4, rated 4', rated('4'), { score: 4 }, true],
    ['rating equals 4, rated 5', rated('4'), { score: 5 }, false],
    ['rating equals 5, rated "5"', rated('5'), { score: '5' }, true],
    ['rating unanswered', rated('4'), { score: 9 }, null],
    ['no rule', { goal: null, fields: [field('yes_no', { key: 'ok' })], success: null }, { ok: true }, null],
  ])('%s', (_name, capture, answers, expected) => {
    expect(buildResult(reading({ answers }), capture, READ_AT).success).toBe(expected);
  });

  it('is null for a capture without a rule or without a capture', () => {
    expect(applySuccessRule(null, { ok: true })).toBeNull();
  });
});

describe('buildResult decided without reading', () => {
  const capture: Capture = {
    goal: 'Confirm the visit',
    fields: [field('yes_no', { key: 'attending', required: true }), field('text', { key: 'notes' })],
    success: { field: 'attending', equals: 'yes' },
  };

  it('an unanswered call: no summary, no sentiment, a call back', () => {
    expect(buildResult(null, capture, READ_AT, 'unanswered')).toEqual({
      state: 'ready',
      disposition: 'unanswered',
      goal_met: 'no',
      success: null,
      summary: null,
      sentiment: null,
      next_step: 'call_back',
      next_step_reason: 'The call was not answered.',
      fields: {},
      captured: 0,
      expected: 2,
      missing_required: ['attending'],
      read_at: READ_AT,
    });
  });

  it('a call where nobody spoke: a summary saying so, no sentiment', () => {
    expect(buildResult(null, null, READ_AT, 'no_conversation')).toEqual({
      state: 'ready',
      disposition: 'no_conversation',
      goal_met: 'no',
      success: null,
      summary: 'The call connected but nobody spoke.',
      sentiment: null,
      next_step: 'call_back',
      next_step_reason: 'The call connected but nobody spoke.',
      fields: {},
      captured: 0,
      expected: 0,
      missing_required: [],
      read_at: READ_AT,
    });
  });
});

describe('failedResult', () => {
  it('is the pending shape with state failed', () => {
    expect(failedResult()).toEqual({ ...pendingResult(), state: 'failed' });
    expect(failedResult()).toMatchObject({ disposition: null, fields: {}, captured: 0, expected: 0, missing_required: [], read_at: null });
  });
});
