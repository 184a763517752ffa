import type { Capture, CaptureField, CaptureFieldType, ReadInput, TranscriptTurn } from '../../../src/calls/types';
import { buildResult } from '../../../src/calls/result';
import { createSimulatedReader, readTranscript, type ReaderFailureScript } from '../../../src/providers/reader/simulatedReader';
import { ReaderPermanentError, ReaderTemporaryError } from '../../../src/calls/reader';

function field(key: string, label: string, type: CaptureFieldType, extra: Partial<CaptureField> = {}): CaptureField {
  return { key, label, type, hint: null, options: [], required: false, display: 'auto', ...extra };
}

/** Alternating agent/person turns from a list of [role, text]. */
function turns(...lines: [TranscriptTurn['role'], string][]): TranscriptTurn[] {
  return lines.map(([role, text], i) => ({ role, text, at_seconds: i * 1.5 }));
}

const agent = (text: string): [TranscriptTurn['role'], string] => ['model', text];
const person = (text: string): [TranscriptTurn['role'], string] => ['user', text];

// A Wednesday, late in the UTC day: relative dates count from the UTC date.
const ANSWERED_AT = '2025-03-05T23:30:00.000Z';

function input(capture: Capture | null, transcript: TranscriptTurn[], over: Partial<ReadInput> = {}): ReadInput {
  return { callId: 'call_test', direction: 'outbound', goal: capture?.goal ?? null, purpose: null, capture, transcript, answeredAt: ANSWERED_AT, ...over };
}

const visit: Capture = {
  goal: 'Confirm the visit',
  fields: [
    field('attending', 'Will you attend?', 'yes_no', { required: true }),
    field('slot', 'Preferred slot', 'choice', { options: ['Morning', 'Early afternoon', 'Afternoon'] }),
    field('extras', 'Extras', 'multi_choice', { options: ['Wifi', 'Parking', 'Breakfast'] }),
    field('guests', 'How many guests', 'number'),
    field('score', 'Rate the booking', 'rating'),
    field('day', 'Which day', 'date', { required: true }),
    field('notes', 'Anything else', 'text'),
  ],
  success: { field: 'attending', equals: 'yes' },
};

describe('the simulated reader: answers by type', () => {
  it('reads every field from the reply to its question', () => {
    const reading = readTranscript(
      input(
        visit,
        turns(
          agent('Hello, this is the hotel calling about your booking.'),
          person('Hi.'),
          agent('Will you attend?'),
          person('Yeah, I will.'),
          agent('Preferred slot? The options are Morning, Early afternoon, Afternoon.'),
          person('Early afternoon, please.'),
          agent('Extras? The options are Wifi, Parking, Breakfast.'),
          person('Parking and wifi.'),
          agent('How many guests?'),
          person('Three of us.'),
          agent('Rate the booking?'),
          person("I'd say 4 out of 5."),
          agent('Which day?'),
          person('Tomorrow.'),
          agent('Anything else?'),
          person('  A quiet room if possible.  '),
          agent('Thank you. Goodbye!'),
          person('Thanks, bye.'),
        ),
      ),
    );
    expect(reading).toEqual({
      disposition: 'completed',
      goal_met: 'yes',
      summary: 'The person stayed on the call to the end and answered 7 of 7 questions.',
      sentiment: 'positive',
      next_step: 'none',
      next_step_reason: null,
      answers: {
        attending: true,
        slot: 'Early afternoon',
        extras: ['Wifi', 'Parking'],
        guests: 3,
        score: 4,
        day: '2025-03-06',
        notes: 'A quiet room if possible.',
      },
    });
  });

  it.each<[string, CaptureField, string, unknown]>([
    ['yes_no: sure', field('f', 'Is that right', 'yes_no'), 'Sure, go ahead.', true],
    ['yes_no: nope', field('f', 'Is that right', 'yes_no'), 'Nope.', false],
    ['yes_no: not really', field('f', 'Is that right', 'yes_no'), 'Not really, no.', false],
    ['yes_no: unsure stays unanswered', field('f', 'Is that right', 'yes_no'), "I'm not sure.", undefined],
    ['yes_no: no idea stays unanswered', field('f', 'Is that right', 'yes_no'), 'No idea.', undefined],
    ['choice: the option said, as written', field('f', 'Colour', 'choice', { options: ['Red', 'Blue'] }), 'BLUE I think', 'Blue'],
    ['choice: nothing known', field('f', 'Colour', 'choice', { options: ['Red', 'Blue'] }), 'Purple', undefined],
    ['choice: "red" inside a word is not red', field('f', 'Colour', 'choice', { options: ['Red', 'Blue'] }), 'Reddish, I suppose.', undefined],
    ['multi_choice: all of them', field('f', 'Extras', 'multi_choice', { options: ['Wifi', 'Parking'] }), 'All of them.', ['Wifi', 'Parking']],
    ['multi_choice: none known', field('f', 'Extras', 'multi_choice', { options: ['Wifi', 'Parking'] }), 'Just a pool.', undefined],
    ['number: digits', field('f', 'How many', 'number'), 'About 12.', 12],
    ['number: thousands', field('f', 'Budget', 'number'), '1,200 euros.', 1200],
    ['number: a decimal', field('f', 'Budget', 'number'), '2.5 thousand', 2.5],
    ['number: a word', field('f', 'How many', 'number'), 'Seven.', 7],
    ['number: none', field('f', 'How many', 'number'), 'None at all.', 0],
    ['number: nothing numeric', field('f', 'How many', 'number'), 'A few.', undefined],
    ['rating: a digit', field('f', 'Score', 'rating'), '5', 5],
    ['rating: a word', field('f', 'Score', 'rating'), 'Four.', 4],
    ['rating: four out of five', field('f', 'Score', 'rating'), 'four out of five', 4],
    ['rating: out of range', field('f', 'Score', 'rating'), '8 out of 10', undefined],
    ['date: ISO', field('f', 'When', 'date'), 'On 2025-04-01 please.', '2025-04-01'],
    ['date: not a calendar date', field('f', 'When', 'date'), '2025-02-30', undefined],
    ['date: today', field('f', 'When', 'date'), 'Today is fine.', '2025-03-05'],
    ['date: tonight', field('f', 'When', 'date'), 'Tonight.', '2025-03-05'],
    ['date: tomorrow', field('f', 'When', 'date'), 'Tomorrow works.', '2025-03-06'],
    ['date: the day after tomorrow', field('f', 'When', 'date'), 'The day after tomorrow.', '2025-03-07'],
    ['date: yesterday', field('f', 'When', 'date'), 'It was yesterday.', '2025-03-04'],
    ['date: a weekday', field('f', 'When', 'date'), 'Next Monday.', '2025-03-10'],
    ['date: the same weekday is next week', field('f', 'When', 'date'), 'Wednesday.', '2025-03-12'],
    ['date: nothing dated', field('f', 'When', 'date'), 'Whenever.', undefined],
    ['text: the whole reply', field('f', 'Comments', 'text'), 'It was fine.', 'It was fine.'],
  ])('%s', (_name, f, reply, expected) => {
    const capture: Capture = { goal: null, fields: [f], success: null };
    const reading = readTranscript(input(capture, turns(agent(`${f.label}?`), person(reply), agent('Goodbye.'), person('Bye.'))));
    expect(reading.answers[f.key]).toEqual(expected);
  });

  it('joins consecutive replies and stops at the next agent turn', () => {
    const capture: Capture = { goal: null, fields: [field('notes', 'Comments', 'text'), field('ok', 'Happy', 'yes_no')], success: null };
    const reading = readTranscript(
      input(capture, turns(agent('Comments?'), person('Well,'), person('the room was cold.'), agent('Happy?'), person('Yes.'), agent('Bye.'), person('Bye.'))),
    );
    expect(reading.answers).toEqual({ notes: 'Well, the room was cold.', ok: true });
  });

  it('tells "Name" from "Company name" and a question from a passing mention', () => {
    const capture: Capture = { goal: null, fields: [field('name', 'Name', 'text'), field('company_name', 'Company name', 'text')], success: null };
    const reading = readTranscript(
      input(
        capture,
        turns(agent("Hi, I'll need your name shortly."), person('Hello.'), agent('Company name?'), person('Acme Ltd.'), agent('Name?'), person('Jo Bloggs.'), agent('Bye.'), person('Bye.')),
      ),
    );
    expect(reading.answers).toEqual({ name: 'Jo Bloggs.', company_name: 'Acme Ltd.' });
  });

  it('takes the answer to a question asked again after a reply that did not fit', () => {
    const capture: Capture = { goal: null, fields: [field('guests', 'How many guests', 'number')], success: null };
    const reading = readTranscript(
      input(capture, turns(agent('How many guests?'), person('Hmm, let me think.'), agent('Sorry, how many guests?'), person('Two.'), agent('Bye.'), person('Bye.'))),
    );
    expect(reading.answers).toEqual({ guests: 2 });
    expect(reading.disposition).toBe('completed');
  });

  it('leaves a field unanswered when its question was never asked or nobody replied', () => {
    const capture: Capture = { goal: null, fields: [field('a', 'First question', 'text'), field('b', 'Second question', 'text')], success: null };
    const reading = readTranscript(input(capture, turns(agent('First question?'), agent('Second question?'), person('Sorry, what?'))));
    expect(reading.answers).toEqual({ b: 'Sorry, what?' });
  });
});

describe('the simulated reader: dispositions', () => {
  const three: Capture = {
    goal: 'Check in',
    fields: [field('a', 'Question one', 'yes_no'), field('b', 'Question two', 'yes_no'), field('c', 'Question three', 'yes_no', { required: true })],
    success: null,
  };

  it('completed: every question asked with the person still there', () => {
    const reading = readTranscript(
      input(three, turns(agent('Question one?'), person('Yes.'), agent('Question two?'), person('No.'), agent('Question three?'), person('Yes.'), agent('Bye.'), person('Bye.'))),
    );
    expect(reading).toMatchObject({ disposition: 'completed', goal_met: 'yes', next_step: 'none', next_step_reason: null, sentiment: 'neutral' });
  });

  it('completed but a required answer unusable: the goal is unclear, and the result says partial', () => {
    const reading = readTranscript(
      input(three, turns(agent('Question one?'), person('Yes.'), agent('Question two?'), person('No.'), agent('Question three?'), person('Maybe.'), agent('Bye.'), person('Bye.'))),
    );
    expect(reading).toMatchObject({ disposition: 'completed', goal_met: 'unclear' });
    expect(buildResult(reading, three, ANSWERED_AT)).toMatchObject({ disposition: 'partial', missing_required: ['c'], captured: 2, expected: 3 });
  });

  it('completed with the success rule failing: the goal is unclear', () => {
    const capture: Capture = { ...three, success: { field: 'a', equals: 'yes' } };
    const reading = readTranscript(
      input(capture, turns(agent('Question one?'), person('No.'), agent('Question two?'), person('No.'), agent('Question three?'), person('Yes.'), agent('Bye.'), person('Bye.'))),
    );
    expect(reading).toMatchObject({ disposition: 'completed', goal_met: 'unclear' });
    expect(buildResult(reading, capture, ANSWERED_AT).success).toBe(false);
  });

  it('partial: the person left before the last question, half or more answered', () => {
    const reading = readTranscript(input(three, turns(agent('Question one?'), person('Yes.'), agent('Question two?'), person('Yes.'), agent('Question three?'))));
    expect(reading).toEqual({
      disposition: 'partial',
      goal_met: 'unclear',
      summary: 'The call ended before every question was covered. The person answered 2 of 3 questions.',
      sentiment: 'neutral',
      next_step: 'call_back',
      next_step_reason: 'The call ended before every question was answered.',
      answers: { a: true, b: true },
    });
  });

  it('hung_up_early: the person left with fewer than half answered', () => {
    const reading = readTranscript(input(three, turns(agent('Hello!'), person('Who is this?'), agent('Question one?'), person('Yes.'), agent('Question two?'))));
    expect(reading).toMatchObject({
      disposition: 'hung_up_early',
      goal_met: 'unclear',
      summary: 'The person hung up early, having answered 1 of 3 questions.',
      next_step: 'call_back',
      next_step_reason: 'The call ended early, before the questions were answered.',
    });
  });

  it('callback_requested', () => {
    const reading = readTranscript(input(three, turns(agent('Question one?'), person("Yes. But I'm busy right now, can you call me back later?"), agent('Of course. Bye.'))));
    expect(reading).toMatchObject({
      disposition: 'callback_requested',
      goal_met: 'unclear',
      summary: 'The person asked to be called back later. They answered 1 of 3 questions first.',
      next_step: 'call_back',
      next_step_reason: 'Asked to be called back.',
    });
  });

  it('not_interested, with a negative sentiment', () => {
    const reading = readTranscript(input(three, turns(agent('Question one?'), person("I'm not interested. Stop calling me."))));
    expect(reading).toMatchObject({
      disposition: 'not_interested',
      goal_met: 'no',
      summary: 'The person said they were not interested.',
      sentiment: 'negative',
      next_step: 'none',
      next_step_reason: null,
    });
  });

  it('wrong_person, on an inbound call', () => {
    const reading = readTranscript(input(three, turns(agent('Hello, is this Sam?'), person('Sorry, wrong number.')), { direction: 'inbound' }));
    expect(reading).toMatchObject({
      disposition: 'wrong_person',
      goal_met: 'no',
      summary: 'The call reached the wrong person.',
      next_step: 'human_follow_up',
      next_step_reason: 'The number reached someone else; check the contact details.',
    });
  });

  it('a call without a capture: completed when the person spoke, judged on the purpose', () => {
    const reading = readTranscript(input(null, turns(agent('Calling to remind you of tomorrow.'), person('Great, thank you!')), { direction: 'inbound', purpose: 'Reminder' }));
    expect(reading).toEqual({
      disposition: 'completed',
      goal_met: 'yes',
      summary: 'The caller talked with the agent until the call ended.',
      sentiment: 'positive',
      next_step: 'none',
      next_step_reason: null,
      answers: {},
    });
  });

  it('nobody spoke (normally decided without reading): no sentiment, a call back', () => {
    const reading = readTranscript(input(three, turns(agent('Hello?'), agent('Can you hear me?'))));
    expect(reading).toEqual({
      disposition: 'hung_up_early',
      goal_met: 'unclear',
      summary: 'The call connected but the person said nothing.',
      sentiment: null,
      next_step: 'call_back',
      next_step_reason: 'Nobody spoke on the call.',
      answers: {},
    });
  });

  it('reads a team member turn as the end of a reply, never as an answer', () => {
    const capture: Capture = { goal: null, fields: [field('a', 'Question one', 'text')], success: null };
    const reading = readTranscript(input(capture, turns(agent('Question one?'), ['human', 'I will take it from here.'], person('Fine.'))));
    expect(reading.answers).toEqual({});
  });
});

describe('the simulated reader: scripted failures', () => {
  const transcript = turns(agent('Hello.'), person('Hi, thanks.'));
  const scripts: Record<string, ReaderFailureScript> = { call_flaky: { failTimes: 2 }, call_broken: { permanent: true } };
  const reader = createSimulatedReader(async (callId) => scripts[callId] ?? null);

  it('fails the first failTimes attempts with a temporary error, then reads', async () => {
    const flaky = input(null, transcript, { callId: 'call_flaky' });
    await expect(reader.read(flaky, { attempt: 1 })).rejects.toThrow(ReaderTemporaryError);
    await expect(reader.read(flaky, { attempt: 2 })).rejects.toMatchObject({ name: 'ReaderTemporaryError' });
    await expect(reader.read(flaky, { attempt: 3 })).resolves.toMatchObject({ disposition: 'completed' });
    // Without an attempt number a read is a first attempt.
    await expect(reader.read(flaky)).rejects.toThrow(ReaderTemporaryError);
  });

  it('fails every attempt with a permanent error when scripted so', async () => {
    const broken = input(null, transcript, { callId: 'call_broken' });
    await expect(reader.read(broken, { attempt: 1 })).rejects.toThrow(ReaderPermanentError);
    await expect(reader.read(broken, { attempt: 7 })).rejects.toMatchObject({ name: 'ReaderPermanentError' });
  });

  it('reads calls without a script, and without a lookup at all', async () => {
    await expect(reader.read(input(null, transcript, { callId: 'call_other' }), { attempt: 1 })).resolves.toMatchObject({ sentiment: 'positive' });
    await expect(createSimulatedReader().read(input(null, transcript))).resolves.toMatchObject({ disposition: 'completed' });
  });
});
