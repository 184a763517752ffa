import { z } from 'zod';
import { callBackIdFor, callCollections, scheduleCallBack } from '../../calls';
import { customerOf, failed, type BuiltInToolDefinition } from './builtInTool';

/** The soonest and latest a call-back may be: not a call now (the agent is on one), not a promise for next quarter. */
export const CALL_BACK_MIN_MINUTES = 1;
export const CALL_BACK_MAX_DAYS = 30;

const args = z
  .object({
    in_minutes: z.number().int().min(CALL_BACK_MIN_MINUTES).max(CALL_BACK_MAX_DAYS * 24 * 60).optional(),
    at: z.iso.datetime({ offset: true }).optional(),
    reason: z.string().trim().max(500).optional(),
  })
  .strict()
  .refine((given) => (given.in_minutes === undefined) !== (given.at === undefined), { message: 'give exactly one of in_minutes and at' });

/**
 * A call to the person later, placed by the same agent: one workflow per call-back (a durable
 * timer, then POST /calls's use case; src/calls/callBack.ts). Its id derives from the tool run's
 * key, so a retried run finds the call-back it scheduled.
 */
export const scheduleCallBackTool: BuiltInToolDefinition<z.infer<typeof args>> = {
  name: 'schedule_call_back',
  description: `Schedule a phone call back to the person, from this agent: in a number of minutes, or at a date and time (ISO 8601 with its offset). Between ${CALL_BACK_MIN_MINUTES} minute and ${CALL_BACK_MAX_DAYS} days ahead.`,
  parameters: {
    type: 'object',
    properties: {
      in_minutes: { type: 'integer', minimum: CALL_BACK_MIN_MINUTES, description: 'Call back after this many minutes.' },
      at: { type: 'string', description: 'Call back at this time, e.g. 2026-11-28T10:00:00+05:30.' },
      reason: { type: 'string', description: 'What the call-back is about, for the agent who makes it.' },
    },
    additionalProperties: false,
  },
  args,
  kind: 'tool',
  async run(deps, context, given) {
    const customer = customerOf(context, 'schedule_call_back', 'tool');
    if (!('phone' in customer)) return customer;
    const at = given.at ? new Date(given.at) : new Date(context.now.getTime() + given.in_minutes! * 60_000);
    const aheadMs = at.getTime() - context.now.getTime();
    if (aheadMs < CALL_BACK_MIN_MINUTES * 60_000 || aheadMs > CALL_BACK_MAX_DAYS * 86_400_000) {
      return failed(`A call-back must be between ${CALL_BACK_MIN_MINUTES} minute and ${CALL_BACK_MAX_DAYS} days from now.`, {
        kind: 'tool',
        text: `schedule_call_back: ${at.toISOString()} is out of range`,
      });
    }
    // On a call, ring back from the number the person knows; otherwise the workspace's default.
    const call = context.callId ? await callCollections(deps.db).calls.findOne({ _id: context.callId }) : null;
    const fromNumber = call?.tenant_id === context.tenantId ? call.from_number : null;
    const callBackId = callBackIdFor(context.tenantId, context.runKey);
    const purpose = given.reason ? `A call-back the person asked for: ${given.reason}` : 'A call-back the person asked for.';
    const { scheduled } = await scheduleCallBack(
      { temporal: deps.temporal, taskQueue: deps.taskQueue },
      { callBackId, tenantId: context.tenantId, to: customer.phone, agentId: context.agentId, fromNumber, purpose, at: at.toISOString() },
    );
    return {
      ok: true,
      output: { scheduled: true, call_back_id: callBackId, at: at.toISOString() },
      trail: { kind: 'tool', text: `Scheduled a call-back to ${customer.phone} at ${at.toISOString()}`, detail: { call_back_id: callBackId, first_run: scheduled } },
    };
  },
};
