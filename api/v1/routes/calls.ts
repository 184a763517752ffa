import { findCall } from '../../../src/calls/callStore';
import { placeCall, requestCallId, type PlaceCallDeps } from '../../../src/calls/placeCall';
import { hangUpCall } from '../../../src/calls/hangUpCall';
import { ApiError, found } from '../../errors';
import type { PublicDeps } from '../deps';
import { routeGroup, type RouteDef } from '../../route';
import { callView, createdCallView } from '../../shared/callView';
import { callIdParams, callSchema, hangupSchema, placeCallBody } from '../../shared/calls.schema';

/** How long POST /calls waits for the network to place the call before answering `ringing` anyway. */
const PLACEMENT_WAIT_MS = 10_000;

const CALL_NOT_FOUND = 'Call not found.';

const calls = routeGroup({ auth: { scope: 'calls:write' } });
/** `/calls/{call_id}…`: a call of the workspace, or 404. */
const call = calls.group({ params: callIdParams, notFound: { call_id: CALL_NOT_FOUND }, errors: ['not_found'] });

export function callsRoutes(deps: Pick<PublicDeps, 'db' | 'temporal' | 'config' | 'now'>): RouteDef[] {
  const placing: PlaceCallDeps = { ...deps, now: deps.now ?? (() => new Date()), placementWaitMs: PLACEMENT_WAIT_MS };

  const workspaceCall = async (callId: string, tenantId: string) => found(await findCall(deps.db, tenantId, callId), CALL_NOT_FOUND);

  return [
    calls.post('placeCall', '/api/v1/calls', {
      summary: 'Place an outbound AI call; answers 201 while the phone rings.',
      idempotent: true,
      body: placeCallBody,
      response: { status: 201, description: 'The call, ringing.', schema: callSchema },
      errors: ['failed_precondition'],
      handler: async (ctx, { body }) => {
        // With an Idempotency-Key the call is named by the key's record, so a retry that takes
        // over a request that died mid-way carries its call on instead of placing a second.
        const idempotency = ctx.state.idempotency;
        const placed = await placeCall(placing, ctx.state.workspace!, body, idempotency ? { callId: requestCallId(idempotency) } : {});
        // A refusal goes up as it is: the error handler answers it (api/refusals.ts).
        if (placed.kind === 'refused') throw placed.refusal;
        if (placed.kind === 'not_placed') {
          throw new ApiError('internal', 'The call could not be placed on the network.', { reason: 'originate_failed', call_id: placed.call._id });
        }
        return createdCallView(placed.call);
      },
    }),
    call.get('getCall', '/api/v1/calls/{call_id}', {
      summary: 'Read a call of the workspace: outbound, inbound or campaign.',
      response: { status: 200, description: 'The call.', schema: callSchema },
      handler: async (ctx, { params: { call_id } }) => callView(await workspaceCall(call_id, ctx.state.workspace!._id)),
    }),
    call.post('hangupCall', '/api/v1/calls/{call_id}/hangup', {
      summary: 'End a ringing or connected call; safe to repeat.',
      response: { status: 200, description: '`ended` is true when a hang-up was sent.', schema: hangupSchema },
      handler: async (ctx, { params: { call_id } }) => {
        const call = await workspaceCall(call_id, ctx.state.workspace!._id);
        const ended = call.status === 'ringing' || call.status === 'in_progress' ? await hangUpCall(deps.temporal, call._id) : false;
        return { call_id: call._id, ended };
      },
    }),
  ];
}
