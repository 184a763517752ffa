import type Router from '@koa/router';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { z } from 'zod';
import { acceptInboundCall } from '../../../src/calls/acceptInboundCall';
import { callCollections, type CallDoc } from '../../../src/calls/callStore';
import { calleeScript, calleeScripts, scriptId } from '../../../src/providers/voice/simulatorScript';
import { rereadWorkflowId, type ReadCallInput } from '../../../workflows/callDefinitions';
import type { RequestState } from '../../context';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import { callView } from '../../v1/routes/callView';
import { bodyOf, loadWorkspace, withWorkspaceBody, type ConsoleDeps, type Params } from '../deps';

export const inboundCallBody = z.object({
  /** The caller's number. */
  from: z.string().regex(/^\+?\d{6,20}$/, 'digits with an optional leading +'),
  /** The workspace number dialled; default its first active number. */
  to_number: z.string().max(20).nullable().default(null),
});

const calleeScriptBody = calleeScript;

/**
 * Calls in the console: operators read a call with its transcript, re-read it, script the
 * simulated callee per destination, and place a simulated inbound call.
 */
export function callConsoleRoutes(router: Router<RequestState>, deps: ConsoleDeps): void {
  const { calls } = callCollections(deps.db);
  const scripts = calleeScripts(deps.db);

  async function ownCall(tenantId: string, callId: string): Promise<CallDoc> {
    // By `_id` alone, the one filter FerretDB on SQLite answers without decoding every call.
    const call = await calls.findOne({ _id: callId });
    if (!call || call.tenant_id !== tenantId) throw new ApiError('not_found', 'Call not found.');
    return call;
  }

  router.get('/workspaces/:workspace_id/calls/:call_id', loadWorkspace(deps), async (ctx) => {
    const call = await ownCall(ctx.state.workspace!._id, (ctx as unknown as Params<'call_id'>).params.call_id);
    ctx.body = {
      ...callView(call),
      placed_at: formatTimestamp(call.placed_at),
      deployment_id: call.deployment_id,
      readings: call.readings,
      transcript: call.transcript ?? [],
    };
  });

  /** Reads a finished call again: result `ready` and `call.outcome` sent again. */
  router.post('/workspaces/:workspace_id/calls/:call_id/reread', loadWorkspace(deps), async (ctx) => {
    const call = await ownCall(ctx.state.workspace!._id, (ctx as unknown as Params<'call_id'>).params.call_id);
    if (!call.ended_at) throw new ApiError('conflict', 'The call is still live; it is read when it ends.', { reason: 'call_live' });
    const bumped = await calls.findOneAndUpdate({ _id: call._id }, { $inc: { read_requests: 1 } }, { returnDocument: 'after' });
    const reading = Math.max(bumped!.read_requests + 1, call.readings + 1);
    const input: ReadCallInput = { callId: call._id, tenantId: call.tenant_id, reading, reread: true };
    try {
      await deps.temporal.workflow.start('rereadCall', {
        workflowId: rereadWorkflowId(call._id, reading),
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [input],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    ctx.status = 202;
    ctx.body = { call_id: call._id, reading, workflow_id: rereadWorkflowId(call._id, reading) };
  });

  router.put('/workspaces/:workspace_id/simulator/calls/:destination', ...withWorkspaceBody(deps, calleeScriptBody), async (ctx) => {
    const tenantId = ctx.state.workspace!._id;
    const destination = (ctx as unknown as Params<'destination'>).params.destination.replace(/\D/g, '');
    if (!destination) throw new ApiError('invalid_argument', 'The destination needs digits.');
    const script = bodyOf(ctx, calleeScriptBody);
    const doc = { _id: scriptId(tenantId, destination), tenant_id: tenantId, destination, script, updated_at: deps.now() };
    await scripts.replaceOne({ _id: doc._id }, doc, { upsert: true });
    ctx.body = { destination: `+${destination}`, script };
  });

  router.get('/workspaces/:workspace_id/simulator/calls', loadWorkspace(deps), async (ctx) => {
    const docs = await scripts.find({ tenant_id: ctx.state.workspace!._id }).sort({ _id: 1 }).toArray();
    ctx.body = { items: docs.map((d) => ({ destination: `+${d.destination}`, script: d.script })) };
  });

  router.delete('/workspaces/:workspace_id/simulator/calls/:destination', loadWorkspace(deps), async (ctx) => {
    const destination = (ctx as unknown as Params<'destination'>).params.destination.replace(/\D/g, '');
    await scripts.deleteOne({ _id: scriptId(ctx.state.workspace!._id, destination) });
    ctx.status = 204;
  });

  /** A simulated customer calls one of the workspace's numbers; its agent answers. */
  router.post('/workspaces/:workspace_id/calls/inbound', ...withWorkspaceBody(deps, inboundCallBody), async (ctx) => {
    const answered = await acceptInboundCall(deps, ctx.state.workspace!, bodyOf(ctx, inboundCallBody));
    if (answered.kind === 'refused') throw new ApiError(answered.refusal.code, answered.refusal.message, answered.refusal.details);
    ctx.status = 201;
    ctx.body = callView(answered.call);
  });
}
