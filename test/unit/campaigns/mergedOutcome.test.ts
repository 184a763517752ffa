import type { CallResult } from '../../../src/calls/types';
import { pendingResult } from '../../../src/calls/types';
import { answersSoFar, callBackCapture, mergeOutcome, owesCallBack, type FinishedCall, type MergedOutcome, type RecipientCall } from '../../../src/campaigns/voice/mergedOutcome';
import { allDetails, renderCallText } from '../../../src/campaigns/templateTokens';
import { VOICE_TEST_CAPTURE as CAPTURE } from '../../support/campaigns';

const ready = (over: Partial<CallResult>): CallResult => ({
  ...pendingResult(),
  state: 'ready',
  goal_met: 'unclear',
  sentiment: 'neutral',
  next_step: 'none',
  expected: 3,
  read_at: '2026-01-01T10:00:00Z',
  ...over,
});
const call = (id: string, over: Partial<CallResult>, evidence: FinishedCall['evidence'] = {}): FinishedCall => ({ call_id: id, result: ready(over), evidence });

const dropped = call('call_1', { disposition: 'hung_up_early', fields: { address_ok: true }, missing_required: ['slot'], summary: 'Hung up early.' }, { address_ok: { quote: 'Yes.', turn: 3 } });
const completing = call('call_2', { disposition: 'completed', fields: { slot: 'Evening', notes: 'Ring first' }, summary: 'Finished.' }, { slot: { quote: 'Evening please.', turn: 5 } });
const unanswered = call('call_3', { disposition: 'unanswered', goal_met: 'no', sentiment: null, next_step: 'call_back', missing_required: ['address_ok', 'slot'] });

describe('merging a person’s calls', () => {
  it('a dropped first call plus a completing call-back make one complete record, answers and evidence from both', () => {
    const merged = mergeOutcome(mergeOutcome(null, dropped, CAPTURE), completing, CAPTURE);
    expect(merged).toEqual({
      disposition: 'completed',
      goal_met: 'unclear',
      success: true,
      summary: 'Finished.',
      sentiment: 'neutral',
      next_step: 'none',
      next_step_reason: null,
      fields: { address_ok: true, slot: 'Evening', notes: 'Ring first' },
      evidence: { address_ok: { quote: 'Yes.', turn: 3, call_id: 'call_1' }, slot: { quote: 'Evening please.', turn: 5, call_id: 'call_2' } },
      captured: 3,
      expected: 3,
      missing_required: [],
      call_id: 'call_2',
    });
  });

  it('a later unanswered call never replaces earlier learning', () => {
    const first = mergeOutcome(null, dropped, CAPTURE);
    expect(mergeOutcome(first, unanswered, CAPTURE)).toBe(first);
    // Nothing learnt before either: the later record stands.
    expect(mergeOutcome(mergeOutcome(null, unanswered, CAPTURE), call('call_4', { disposition: 'no_conversation' }), CAPTURE).disposition).toBe('no_conversation');
  });

  it('a completed record stays completed, whatever a later call says', () => {
    const done = mergeOutcome(null, call('call_1', { disposition: 'completed', fields: { address_ok: false, slot: 'Morning' } }), CAPTURE);
    expect(mergeOutcome(done, dropped, CAPTURE)).toBe(done);
    expect(mergeOutcome(done, unanswered, CAPTURE)).toBe(done);
  });

  it('never says completed while a required answer is missing across the calls', () => {
    const merged = mergeOutcome(null, call('call_1', { disposition: 'completed', fields: { address_ok: true } }), CAPTURE);
    expect(merged).toMatchObject({ disposition: 'partial', missing_required: ['slot'] });
  });

  it('a failed reading teaches nothing: it does not replace what is known', () => {
    const first = mergeOutcome(null, dropped, CAPTURE);
    expect(mergeOutcome(first, { call_id: 'call_9', result: { ...pendingResult(), state: 'failed' }, evidence: {} }, CAPTURE)).toBe(first);
  });
});

describe('the one call-back', () => {
  const history = (kinds: RecipientCall['kind'][]): RecipientCall[] =>
    kinds.map((kind, i) => ({ call_id: `call_${i}`, kind, placed_at: new Date(0), answered: true, ended_at: null, disposition: null, result_state: 'ready' }));
  const outcome = mergeOutcome(null, dropped, CAPTURE);

  it('is owed when a conversation ended partway with a required answer missing, once', () => {
    expect(owesCallBack({ callBackIncomplete: true, calls: history(['first']), outcome, last: dropped })).toBe(true);
    expect(owesCallBack({ callBackIncomplete: true, calls: history(['first', 'call_back']), outcome, last: dropped })).toBe(false);
    expect(owesCallBack({ callBackIncomplete: false, calls: history(['first']), outcome, last: dropped })).toBe(false);
  });

  it('is not owed for an unanswered call, a refusal, a request to call back, or when every required answer is in', () => {
    const u = mergeOutcome(null, unanswered, CAPTURE);
    expect(owesCallBack({ callBackIncomplete: true, calls: history(['first']), outcome: u, last: unanswered })).toBe(false);
    for (const disposition of ['not_interested', 'callback_requested', 'wrong_person'] as const) {
      const last = call('call_1', { disposition, fields: {} });
      expect(owesCallBack({ callBackIncomplete: true, calls: history(['first']), outcome: mergeOutcome(null, last, CAPTURE), last })).toBe(false);
    }
    const allRequired = call('call_1', { disposition: 'partial', fields: { address_ok: true, slot: 'Morning' } });
    expect(owesCallBack({ callBackIncomplete: true, calls: history(['first']), outcome: mergeOutcome(null, allRequired, CAPTURE), last: allRequired })).toBe(false);
  });

  it('asks only what is missing and carries the answers so far', () => {
    expect(callBackCapture(CAPTURE, outcome)).toEqual({ goal: CAPTURE.goal, fields: CAPTURE.fields.slice(1), success: null });
    expect(answersSoFar(CAPTURE, outcome)).toEqual({ 'Already answered: Is the delivery address correct': true });
    const slotKnown = mergeOutcome(null, call('call_1', { disposition: 'partial', fields: { slot: 'Morning' } }), CAPTURE);
    expect(callBackCapture(CAPTURE, slotKnown)!.success).toEqual(CAPTURE.success);
  });
});

describe('purpose and script per person', () => {
  const asha = { name: 'Asha', phone: '+919812345678', email: null };
  it('fills {{name}}, {{contact.phone}} and {{all}}, keeping line breaks', () => {
    expect(renderCallText('Hi {{name}},\ncall {{contact.phone}}.\n{{all}}', asha)).toEqual({ ok: true, text: 'Hi Asha,\ncall +919812345678.\nName: Asha\nPhone: +919812345678' });
    expect(allDetails({ name: null, phone: null, email: null })).toBe('');
  });
  it('gives the missing field for a token with no value ({{all}} never misses)', () => {
    expect(renderCallText('Mail {{email}}', asha)).toEqual({ ok: false, field: 'contact.email' });
    expect(renderCallText('{{ contact.email }}', asha)).toEqual({ ok: false, field: 'contact.email' });
  });
});

export type { MergedOutcome };
