import { z } from 'zod';
import { acceptInboundCall } from '../../../src/calls/acceptInboundCall';
import { findCall, type CallDoc } from '../../../src/calls/callStore';
import { deleteCalleeScript, listCalleeScripts, putCalleeScript } from '../../../src/providers/voice/simulatorScript';
import { requestReread } from '../../../src/calls/requestReread';
import { ApiError, found } from '../../errors';
import { formatTimestamp } from '../../format';
import { callView } from '../../shared/callView';
import { itemsOf } from '../views';
import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { callPersonNames } from '../personNames';
import { callSchema } from '../../shared/calls.schema';
import { inboundCallBody, calleeScriptBody, calleeScriptRecord, consoleCallRecord, destinationParam, rereadAnswer } from './calls.schema';

const ws = workspaceGroup();

const CALL_NOT_FOUND = 'Call not found.';
/** `calls/{call_id}…`: a call of the workspace, or 404. */
const call = ws.record('call_id', CALL_NOT_FOUND);
/** `simulator/calls/{destination}`: the simulated callee of one destination. */
const calleeScript = ws.group({ params: { destination: destinationParam } });

/**
 * Calls in the console: operators read a call with its transcript, re-read it, script the
 * simulated callee per destination, and place a simulated inbound call.
 */
export function callConsoleRoutes(deps: ConsoleDeps): RouteDef[] {
  const routes: RouteDef[] = [];

  const ownCall = async (tenantId: string, callId: string): Promise<CallDoc> => found(await findCall(deps.db, tenantId, callId), CALL_NOT_FOUND);

  routes.push(
    call.get('getConsoleCall', 'calls/{call_id}', {
      summary: 'Read a call as GET /api/v1/calls/{id} shows it, plus placement, readings and transcript.',
      response: { status: 200, description: 'The call.', schema: consoleCallRecord },
      handler: async (ctx, { params, tenantId, workspace }) => {
        const call = await ownCall(tenantId, params.call_id);
        const names = await callPersonNames(deps.db, tenantId, workspace.country, [call]);
        return {
          ...callView(call),
          person_name: names.get(call._id) ?? null,
          purpose: call.purpose,
          placed_at: formatTimestamp(call.placed_at),
          deployment_id: call.deployment_id,
          readings: call.readings,
          transcript: call.transcript ?? [],
        } satisfies z.infer<typeof consoleCallRecord>;
      },
    }),
  );

  /** Reads a finished call again: result `ready` and `call.outcome` sent again. */
  routes.push(
    call.post('rereadCall', 'calls/{call_id}/reread', {
      summary: 'Read a finished call again: result `ready` and `call.outcome` sent again.',
      response: { status: 202, description: '`{call_id, reading, workflow_id}`.', schema: rereadAnswer },
      errors: ['conflict'],
      handler: async (ctx, { params, tenantId }) => {
        const call = await ownCall(tenantId, params.call_id);
        if (!call.ended_at) throw new ApiError('conflict', 'The call is still live; it is read when it ends.', { reason: 'call_live' });
        // Read again without its transcript, the call would lose the answers it has.
        if (call.transcript_removed_at) throw new ApiError('conflict', 'The call’s transcript was removed by the retention (TRANSCRIPT_RETENTION_DAYS); there is nothing to read.', { reason: 'transcript_removed' });
        const { reading, workflowId } = await requestReread(deps.db, deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, call);
        return { call_id: call._id, reading, workflow_id: workflowId };
      },
    }),
  );

  routes.push(
    calleeScript.put('putCalleeScript', 'simulator/calls/{destination}', {
      summary: 'Script the simulated callee of a destination; replaces its script as a whole.',
      body: calleeScriptBody,
      response: { status: 200, description: 'The stored script, with its defaults filled in.', schema: calleeScriptRecord },
      handler: async (ctx, { params, body: script, tenantId }) => {
        await putCalleeScript(deps.db, tenantId, params.destination, script, deps.now());
        return { destination: `+${params.destination.replace(/\D/g, '')}`, script };
      },
    }),
  );

  routes.push(
    ws.get('listCalleeScripts', 'simulator/calls', {
      summary: "List the workspace's callee scripts.",
      response: { status: 200, description: '`{items: [{destination, script}]}`.', schema: itemsOf(calleeScriptRecord) },
      handler: async (ctx, { tenantId }) => {
        const docs = await listCalleeScripts(deps.db, tenantId);
        return { items: docs.map((d) => ({ destination: `+${d.destination}`, script: d.script })) };
      },
    }),
  );

  routes.push(
    calleeScript.delete('deleteCalleeScript', 'simulator/calls/{destination}', {
      summary: 'Forget the callee script of a destination.',
      response: { status: 204, description: 'Deleted (or there was none).' },
      handler: async (ctx, { params, tenantId }) => {
        await deleteCalleeScript(deps.db, tenantId, params.destination);
        ctx.status = 204;
      },
    }),
  );

  /** A simulated customer calls one of the workspace's numbers; its agent answers. */
  routes.push(
    ws.post('placeInboundCall', 'calls/inbound', {
      summary: "A simulated customer calls one of the workspace's numbers; its agent answers.",
      body: inboundCallBody,
      response: { status: 201, description: 'The call.', schema: callSchema },
      errors: ['failed_precondition'],
      handler: async (ctx, { body, workspace }) => {
        const answered = await acceptInboundCall(deps, workspace, body);
        // A refusal goes up as it is: the error handler answers it (api/refusals.ts).
        if (answered.kind === 'refused') throw answered.refusal;
        return callView(answered.call);
      },
    }),
  );
  return routes;
}
