import { z } from 'zod';
import { DISPOSITIONS, NEXT_STEPS, type Capture, type CaptureField, type Reading } from '../../calls/types';
import { MAX_TEXT_ANSWER_CHARS } from '../../calls/result';

/**
 * The Reading as a model is asked to produce it: a JSON schema built per capture (each
 * field typed, nullable when unanswered) for structured output, and the looser zod check
 * the answer must pass. Answers are checked by type later (coerceAnswer), so one answer
 * of the wrong type drops that answer, not the whole reading.
 */

export const READ_DISPOSITIONS = DISPOSITIONS.filter(
  (d): d is Reading['disposition'] => d !== 'no_conversation' && d !== 'unanswered',
) as unknown as readonly [Reading['disposition'], ...Reading['disposition'][]];

const goalMet = z.enum(['yes', 'no', 'unclear']);
const sentiment = z.enum(['positive', 'neutral', 'negative']);
const nextStep = z.enum(NEXT_STEPS);

function answerSchema(field: CaptureField) {
  const about = [`The answer to "${field.label}".`, field.hint ? `Hint: ${field.hint}` : null, 'Null when not answered.'];
  const described = (schema: z.ZodType, note: string) => schema.nullable().describe([...about, note].filter(Boolean).join(' '));
  const options = field.options as [string, ...string[]];
  switch (field.type) {
    case 'text':
      return described(z.string(), `The person's answer in their words, at most ${MAX_TEXT_ANSWER_CHARS} characters.`);
    case 'yes_no':
      return described(z.boolean(), 'true for yes, false for no.');
    case 'choice':
      return options.length > 0 ? described(z.enum(options), 'Exactly one of the options.') : described(z.string(), 'One of the options.');
    case 'multi_choice':
      return described(z.array(options.length > 0 ? z.enum(options) : z.string()), 'Every option the person chose.');
    case 'number':
      return described(z.number(), 'A number.');
    case 'rating':
      return described(z.int().min(1).max(5), 'A whole number from 1 to 5.');
    case 'date':
      return described(z.string().regex(/^\d{4}-\d{2}-\d{2}$/), 'A calendar date as YYYY-MM-DD.');
  }
}

/** The JSON schema handed to the model for one call (OpenAI strict structured output). */
export function readingJsonSchema(capture: Capture | null): Record<string, unknown> {
  const fields = capture?.fields ?? [];
  const shape = {
    ...(fields.length > 0 ? { answers: z.object(Object.fromEntries(fields.map((f) => [f.key, answerSchema(f)]))) } : {}),
    disposition: z.enum(READ_DISPOSITIONS),
    goal_met: goalMet,
    summary: z.string().describe('One or two sentences in English on what happened on the call.'),
    sentiment: sentiment.nullable().describe("The person's sentiment; null when the person said nothing."),
    next_step: nextStep,
    next_step_reason: z.string().nullable().describe('A short sentence when next_step is not none; otherwise null.'),
  };
  const schema = z.toJSONSchema(z.object(shape)) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** What the model's JSON must be; `answers` is absent when the capture has no fields. */
export const readingResponse = z.object({
  answers: z
    .record(z.string(), z.unknown())
    .default({})
    .transform((answers) => Object.fromEntries(Object.entries(answers).filter(([, v]) => v !== null))),
  disposition: z.enum(READ_DISPOSITIONS),
  goal_met: goalMet,
  summary: z.string(),
  sentiment: sentiment.nullable(),
  next_step: nextStep,
  next_step_reason: z.string().nullable(),
});

export function toReading(parsed: z.infer<typeof readingResponse>): Reading {
  return {
    disposition: parsed.disposition,
    goal_met: parsed.goal_met,
    summary: parsed.summary,
    sentiment: parsed.sentiment,
    next_step: parsed.next_step,
    next_step_reason: parsed.next_step_reason,
    answers: parsed.answers,
  };
}
