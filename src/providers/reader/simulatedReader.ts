import { applySuccessRule, typedFields } from '../../calls/result';
import type { Disposition, GoalMet, NextStep, Reading, ReadInput, Sentiment } from '../../calls/types';
import { mentions, readAnswers } from '../../calls/transcriptAnswers';
import { type CallReader, type ReadOptions, ReaderPermanentError, ReaderTemporaryError } from '../../calls';

/**
 * The default reader: deterministic, and it really reads the transcript's text (word lists
 * and the question-then-reply pattern in src/calls/transcriptAnswers.ts), so a person trying the API
 * sees answers that come from what was said. Reader failures can be scripted per call.
 */

/** Scripted failures for one call's reads. */
export interface ReaderFailureScript {
  /** The first N attempts of every read of the call fail with a temporary error. */
  failTimes?: number;
  /** Every read of the call fails with a permanent error (no retry). */
  permanent?: boolean;
}

/** Finds the failure script for a call (the console stores them per destination); `call`, when the read input carries it, spares reading the call. */
export type ReaderScriptLookup = (
  callId: string,
  call?: { tenantId: string; to: string },
) => ReaderFailureScript | null | undefined | Promise<ReaderFailureScript | null | undefined>;

type ReadDisposition = Reading['disposition'];

const WRONG_PERSON = [
  'wrong number',
  'wrong person',
  'you have the wrong',
  "you've got the wrong",
  'you got the wrong',
  'no one by that name',
  'nobody by that name',
  'no one here by that name',
  "doesn't live here",
  'does not live here',
  'not the person you',
];
const NOT_INTERESTED = ['not interested', 'no interest', 'stop calling', "don't call me", 'do not call', 'remove me', 'take me off', 'leave me alone'];
const CALL_BACK = [
  'call me back',
  'call back',
  'call me later',
  'call later',
  'call again',
  'call me tomorrow',
  'ring me back',
  'another time',
  'bad time',
  'not a good time',
  'busy right now',
  "i'm driving",
  'in a meeting',
];
const NEGATIVE = [
  'angry',
  'annoyed',
  'annoying',
  'stop calling',
  'leave me alone',
  'terrible',
  'awful',
  'horrible',
  'hate',
  'ridiculous',
  'frustrated',
  'frustrating',
  'upset',
  'rude',
  'waste of time',
  'disappointed',
  'unhappy',
  'not happy',
];
const POSITIVE = ['thanks', 'thank you', 'great', 'wonderful', 'excellent', 'perfect', 'happy', 'love', 'lovely', 'appreciate', 'awesome', 'fantastic', 'brilliant', 'glad'];

function sentimentOf(said: string): Sentiment {
  if (mentions(said, NEGATIVE)) return 'negative';
  if (mentions(said, POSITIVE)) return 'positive';
  return 'neutral';
}

function questions(n: number): string {
  return n === 1 ? 'question' : 'questions';
}

function summaryOf(disposition: Disposition, who: string, answered: number, expected: number): string {
  const tally = `${answered} of ${expected} ${questions(expected)}`;
  switch (disposition) {
    case 'completed':
      return expected > 0 ? `${who} stayed on the call to the end and answered ${tally}.` : `${who} talked with the agent until the call ended.`;
    case 'partial':
      return `The call ended before every question was covered. ${who} answered ${tally}.`;
    case 'hung_up_early':
      return expected > 0 ? `${who} hung up early, having answered ${tally}.` : `${who} hung up early.`;
    case 'callback_requested':
      return `${who} asked to be called back later.${answered > 0 ? ` They answered ${tally} first.` : ''}`;
    case 'not_interested':
      return `${who} said they were not interested.`;
    case 'wrong_person':
      return 'The call reached the wrong person.';
    default:
      return `${who} spoke with the agent.`;
  }
}

const NEXT_STEPS: Record<ReadDisposition, { next: NextStep; reason: string | null }> = {
  completed: { next: 'none', reason: null },
  partial: { next: 'call_back', reason: 'The call ended before every question was answered.' },
  hung_up_early: { next: 'call_back', reason: 'The call ended early, before the questions were answered.' },
  callback_requested: { next: 'call_back', reason: 'Asked to be called back.' },
  not_interested: { next: 'none', reason: null },
  wrong_person: { next: 'human_follow_up', reason: 'The number reached someone else; check the contact details.' },
};

/** Reads a transcript as the simulated reader does; exported for tests and the benchmark. */
export function readTranscript(input: ReadInput): Reading {
  const who = input.direction === 'inbound' ? 'The caller' : 'The person';
  const userText = input.transcript
    .filter((t) => t.role === 'user')
    .map((t) => t.text)
    .join(' \n ');
  if (userText.trim() === '') {
    // The service decides `no_conversation` before reading; a reader handed such a call anyway
    // says what it can.
    return {
      disposition: 'hung_up_early',
      goal_met: 'unclear',
      summary: `The call connected but ${who.toLowerCase()} said nothing.`,
      sentiment: null,
      next_step: 'call_back',
      next_step_reason: 'Nobody spoke on the call.',
      answers: {},
    };
  }

  const fields = input.capture?.fields ?? [];
  const { answers, covered } = readAnswers(input.capture, input.transcript, input.answeredAt);
  const typed = typedFields(input.capture, answers);
  const answered = Object.keys(typed).length;

  let disposition: ReadDisposition;
  if (mentions(userText, WRONG_PERSON)) disposition = 'wrong_person';
  else if (mentions(userText, NOT_INTERESTED)) disposition = 'not_interested';
  else if (mentions(userText, CALL_BACK)) disposition = 'callback_requested';
  else if (covered.size < fields.length) disposition = answered * 2 < fields.length ? 'hung_up_early' : 'partial';
  else disposition = 'completed';

  let goalMet: GoalMet = 'unclear';
  if (disposition === 'wrong_person' || disposition === 'not_interested') goalMet = 'no';
  else if (disposition === 'completed') {
    const requiredAnswered = fields.every((f) => !f.required || typed[f.key] !== undefined);
    if (requiredAnswered && applySuccessRule(input.capture, typed) !== false) goalMet = 'yes';
  }

  const { next, reason } = NEXT_STEPS[disposition];
  return {
    disposition,
    goal_met: goalMet,
    summary: summaryOf(disposition, who, answered, fields.length),
    sentiment: sentimentOf(userText),
    next_step: next,
    next_step_reason: reason,
    answers,
  };
}

export function createSimulatedReader(scriptFor?: ReaderScriptLookup): CallReader {
  return {
    async read(input: ReadInput, options: ReadOptions = { attempt: 1 }): Promise<Reading> {
      const script = scriptFor ? await scriptFor(input.callId, input.tenantId && input.to ? { tenantId: input.tenantId, to: input.to } : undefined) : null;
      if (script?.permanent) throw new ReaderPermanentError(`Simulated permanent reader failure for ${input.callId}.`);
      const failTimes = script?.failTimes ?? 0;
      if (options.attempt <= failTimes) {
        throw new ReaderTemporaryError(`Simulated temporary reader failure for ${input.callId} (attempt ${options.attempt} of ${failTimes} scripted).`);
      }
      return readTranscript(input);
    },
  };
}
