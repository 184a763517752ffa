import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { callCollections, deploymentId, newCallDoc, type CallDoc } from '../../../src/calls/callStore';
import { releaseLiveSlot, returnDailyBudget } from '../../../src/calls/admission';
import { normaliseDetails } from '../../../src/calls/details';
import { admitCall } from '../../../src/calls/guards';
import { newId } from '../../../src/domain/ids';
import { callWorkflowDefinition, callWorkflowId, hangupUpdate, placementUpdate, type CallWorkflowInput, type Placement } from '../../../src/calls/contracts';
import { startWorkflow } from '../../../src/temporal/startWorkflow';
import { ApiError } from '../../errors';
import type { PublicDeps } from '../deps';
import { route, type RouteDef } from '../../route';
import { callView, createdCallView } from './callView';
import { callIdParams, callSchema, hangupSchema, placeCallBody } from './calls.schema';

/** How long POST /calls waits for the network to place the call before answering `ringing` anyway. */
const PLACEMENT_WAIT_MS = 10_000;

const CALL_NOT_FOUND = 'Call not found.';
const callNotFound = () => new ApiError('not_found', CALL_NOT_FOUND);

export function callsRoutes(deps: Pick<PublicDeps, 'db' | 'temporal' | 'config' | 'now'>): RouteDef[] {
  const { calls } = callCollections(deps.db);
  const now = deps.now ?? (() => new Date());

  /**
   * A call of the workspace, read by `_id` alone: on FerretDB (SQLite) any other filter makes
   * it decode every call in the collection (DESIGN.md), and GET is what clients poll.
   */
  async function workspaceCall(callId: string, tenantId: string): Promise<CallDoc | null> {
    const call = await calls.findOne({ _id: callId });
    return call && call.tenant_id === tenantId ? call : null;
  }

  /** The network's answer, or null when it has not come within the wait (the request is then cancelled, not left polling). */
  async function waitForPlacement(callId: string): Promise<Placement | null> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), PLACEMENT_WAIT_MS);
    try {
      return await deps.temporal.withAbortSignal(controller.signal, () =>
        deps.temporal.workflow.getHandle(callWorkflowId(callId)).executeUpdate(placementUpdate),
      );
    } catch (err) {
      if (controller.signal.aborted) return null;
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  return [
    route({
      method: 'post',
      path: '/api/v1/calls',
      operationId: 'placeCall',
      summary: 'Place an outbound AI call; answers 201 while the phone rings.',
      auth: { scope: 'calls:write' },
      idempotent: true,
      body: placeCallBody,
      response: { status: 201, description: 'The call, ringing.', schema: callSchema },
      errors: ['failed_precondition'],
      handler: async (ctx, { body }) => {
        const workspace = ctx.state.workspace!;
        const at = now();
        const callId = newId('call', at);
        // A CallRefusal goes up as it is: the error handler answers it (api/refusals.ts).
        const admitted = await admitCall(
          { db: deps.db, deploymentChannels: deps.config.DEPLOYMENT_CHANNELS },
          workspace,
          { to: body.to, from_number: body.from_number, agent_id: body.agent_id },
          callId,
          at,
        );

        const call = newCallDoc({
          _id: callId,
          tenant_id: workspace._id,
          direction: 'outbound',
          status: 'ringing',
          to: admitted.to,
          from_number: admitted.number._id,
          agent_id: admitted.agent._id,
          requested_agent_id: body.agent_id,
          deployment_id: deploymentId(admitted.number._id, admitted.agent._id),
          purpose: body.purpose,
          script: body.script,
          detail_lines: normaliseDetails(body.details),
          capture: body.capture,
          ring_seconds: body.ring_seconds,
          max_call_seconds: admitted.agent.max_call_minutes * 60,
          metadata: body.metadata,
          recording: admitted.number.recording,
          reserved_minutes: admitted.reservedMinutes,
          budget_day: admitted.budgetDay,
          created_at: at,
        });
        const input: CallWorkflowInput = {
          callId,
          tenantId: workspace._id,
          direction: 'outbound',
          ringSeconds: body.ring_seconds,
          maxCallSeconds: call.max_call_seconds,
          createdAt: at.toISOString(),
        };
        try {
          await calls.insertOne(call);
          await startWorkflow(deps.temporal, callWorkflowDefinition, {
            workflowId: callWorkflowId(callId),
            taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
            args: [input],
          });
        } catch (err) {
          // Nothing was dialled: give back the places taken, and leave no live-looking record.
          await releaseLiveSlot(deps.db, workspace._id, callId);
          await returnDailyBudget(deps.db, workspace._id, admitted.budgetDay, admitted.reservedMinutes, callId);
          await calls.deleteOne({ _id: callId });
          throw err;
        }

        const placement = await waitForPlacement(callId);
        if (placement && !placement.placed) {
          throw new ApiError('internal', 'The call could not be placed on the network.', { reason: 'originate_failed', call_id: callId });
        }
        ctx.status = 201;
        ctx.body = createdCallView(call);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/calls/{call_id}',
      operationId: 'getCall',
      summary: 'Read a call of the workspace: outbound, inbound or campaign.',
      auth: { scope: 'calls:write' },
      params: callIdParams,
      notFound: { call_id: CALL_NOT_FOUND },
      response: { status: 200, description: 'The call.', schema: callSchema },
      errors: ['not_found'],
      handler: async (ctx, { params: { call_id } }) => {
        const call = await workspaceCall(call_id, ctx.state.workspace!._id);
        if (!call) throw callNotFound();
        ctx.body = callView(call);
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/calls/{call_id}/hangup',
      operationId: 'hangupCall',
      summary: 'End a ringing or connected call; safe to repeat.',
      auth: { scope: 'calls:write' },
      params: callIdParams,
      notFound: { call_id: CALL_NOT_FOUND },
      response: { status: 200, description: '`ended` is true when a hang-up was sent.', schema: hangupSchema },
      errors: ['not_found'],
      handler: async (ctx, { params: { call_id } }) => {
        const call = await workspaceCall(call_id, ctx.state.workspace!._id);
        if (!call) throw callNotFound();
        let ended = false;
        if (call.status === 'ringing' || call.status === 'in_progress') {
          try {
            ended = await deps.temporal.workflow.getHandle(callWorkflowId(call._id)).executeUpdate(hangupUpdate);
          } catch (err) {
            // The call finished in the meantime: nothing to end.
            if (!(err instanceof WorkflowNotFoundError) && !(err instanceof WorkflowUpdateFailedError)) throw err;
          }
        }
        ctx.body = { call_id: call._id, ended };
      },
    }),
  ];
}
