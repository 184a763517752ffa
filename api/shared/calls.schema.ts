import { z } from 'zod';
import { captureRequest, normaliseCapture } from '../../src/calls/capture';
import { detailsRequest } from '../../src/calls/details';
import { metadataSchema } from '../../src/domain/metadata';
import { CAPTURE_DISPLAYS, CAPTURE_FIELD_TYPES } from '../../src/calls/types';

/** A capture as calls and call campaigns take it: null by default, keys filled in, each problem at its path. */
export const nullableCapture = captureRequest
  .nullable()
  .default(null)
  .transform((value, ctx) => {
    if (value === null) return null;
    const normalised = normaliseCapture(value);
    if (normalised.capture) return normalised.capture;
    for (const issue of normalised.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });

/** POST /calls (api-core §4): field rules; capture rules run here too, so a bad capture is a validation failure. */
export const placeCallBody = z.object({
  to: z.string().min(6).max(20).regex(/^\+?\d+$/, 'digits with an optional leading +'),
  agent_id: z.string().max(64).nullable().default(null),
  from_number: z.string().max(20).nullable().default(null),
  purpose: z.string().max(500).nullable().default(null),
  script: z.string().max(4_000).nullable().default(null),
  details: detailsRequest,
  capture: nullableCapture,
  ring_seconds: z.number().int().min(10).max(90).default(30),
  metadata: metadataSchema.default({}),
});

export type PlaceCallBody = z.infer<typeof placeCallBody>;

export const callIdParams = z.object({ call_id: z.string().min(1).max(64) });

const captureFieldOut = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(CAPTURE_FIELD_TYPES),
  hint: z.string().nullable(),
  options: z.array(z.string()),
  required: z.boolean(),
  display: z.enum(CAPTURE_DISPLAYS),
});

/** A capture as the API shows it (calls, and call campaigns). */
export const captureOut = z.object({
  goal: z.string().nullable(),
  fields: z.array(captureFieldOut),
  success: z.object({ field: z.string(), equals: z.string() }).nullable(),
});

/** What a call's result says of the person, shared by a call's result and a call campaign person's merged outcome (campaigns.schema.ts). */
export const resultSummaryShape = {
  disposition: z.string().nullable(),
  goal_met: z.string().nullable(),
  success: z.boolean().nullable(),
  summary: z.string().nullable(),
  sentiment: z.string().nullable(),
  next_step: z.string().nullable(),
  next_step_reason: z.string().nullable(),
  fields: z.record(z.string(), z.union([z.string(), z.boolean(), z.number(), z.array(z.string())])),
};

export const callResultSchema = z.object({
  state: z.enum(['pending', 'ready', 'failed', 'none']),
  ...resultSummaryShape,
  captured: z.number().int(),
  expected: z.number().int(),
  missing_required: z.array(z.string()),
  read_at: z.string().nullable(),
});

export const callSchema = z.object({
  call_id: z.string(),
  status: z.string().describe('Open vocabulary: ringing, dialing, starting, in_progress, human_handoff, human_active, completed, failed.'),
  direction: z.enum(['outbound', 'inbound']),
  to: z.string().nullable(),
  from_number: z.string().nullable(),
  agent_id: z.string().nullable(),
  duration_seconds: z.number().int().nullable(),
  outcome: z.string().nullable(),
  summary: z.string().nullable(),
  recording_uri: z.string().nullable(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  capture: captureOut.nullable(),
  result: callResultSchema,
});

export const hangupSchema = z.object({ call_id: z.string(), ended: z.boolean() });
