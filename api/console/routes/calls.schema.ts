import { z } from 'zod';
import { CALL_LIST_LIMITS } from '../../../src/calls/callList';
import { CALL_OUTCOMES, CALL_STATUSES } from '../../../src/calls/types';
import { CAMPAIGN_ID_PATTERN } from '../../../src/campaigns/campaign';
import { calleeScript } from '../../../src/providers/voice/simulatorScript';
import { pageQuery, pageOf } from '../../pagination';
import { callSchema } from '../../shared/calls.schema';

/** Request shapes of the console's calls routes (validated by the route definition, described in its OpenAPI document). */

export const inboundCallBody = z.object({
  /** The caller's number. */
  from: z.string().regex(/^\+?\d{6,20}$/, 'digits with an optional leading +'),
  /** The workspace number dialled; default its first active number. */
  to_number: z.string().max(20).nullable().default(null),
});

export const calleeScriptBody = calleeScript;

/** A destination is a phone number: digits, with an optional `+` and separators. */
export const destinationParam = z.string().max(32).regex(/\d/, 'the destination needs digits');

/** GET …/calls/{call_id}: the public call plus where it was placed, how often it was read, and its transcript. */
/** Who the call was with, by name where one is known (api/console/personNames.ts), and what it was for. */
const callPerson = {
  person_name: z.string().nullable(),
  purpose: z.string().nullable(),
};

export const consoleCallRecord = callSchema.extend({
  ...callPerson,
  placed_at: z.string().nullable(),
  deployment_id: z.string(),
  readings: z.number().int(),
  transcript: z.array(z.object({ role: z.enum(['user', 'model', 'human']), text: z.string(), at_seconds: z.number() })),
});

export const rereadAnswer = z.object({ call_id: z.string(), reading: z.number().int(), workflow_id: z.string() });

/** A destination's callee script as stored, with its defaults filled in. */
export const calleeScriptRecord = z.object({ destination: z.string(), script: calleeScript });

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A calendar day, `YYYY-MM-DD`, one that exists. */
const localDate = z
  .string()
  .regex(DAY, 'a date, YYYY-MM-DD')
  // Runs after a failed pattern too (zod checks on), so it judges only what has the pattern, and never throws.
  .refine((d) => {
    if (!DAY.test(d)) return true;
    const at = new Date(`${d}T00:00:00Z`);
    return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(d);
  }, 'a date that exists, YYYY-MM-DD');

/** GET …/calls: a page of recent calls, each filter optional and all of them together. */
export const consoleCallsQuery = pageQuery(CALL_LIST_LIMITS.maxLimit, CALL_LIST_LIMITS.defaultLimit).extend({
  status: z.enum(CALL_STATUSES).optional(),
  outcome: z.enum(CALL_OUTCOMES).optional(),
  /** The other party's number: digits, with an optional `+` and separators (as pasted). */
  to: z.string().max(32).regex(/\d/, 'the number needs digits').optional(),
  campaign_id: z.string().regex(CAMPAIGN_ID_PATTERN, 'a campaign id, cmp_…').optional(),
  /** The first day of calls to list (created on or after its start, in the workspace's time zone). */
  created_from: localDate.optional(),
  /** The last day of calls to list (created before the next day starts, in the workspace's time zone). */
  created_to: localDate.optional(),
}).refine((q) => !q.created_from || !q.created_to || q.created_from <= q.created_to, { message: 'the last day comes before the first', path: ['created_to'] });

/** A call in the list: as GET /api/v1/calls/{id} shows it, plus when it was created and the campaign that placed it. */
export const consoleCallListItem = callSchema.extend({
  ...callPerson,
  created_at: z.string().nullable(),
  campaign_id: z.string().nullable(),
  campaign_name: z.string().nullable(),
});

export const consoleCallPage = pageOf(consoleCallListItem);
