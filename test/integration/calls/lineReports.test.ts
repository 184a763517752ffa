import request from 'supertest';
import { callCollections } from '../../../src/calls/callStore';
import { acceptInboundLineCall } from '../../../src/calls/line/inboundLine';
import { findLineCall, markEndedByUs, markMedia, saveLineCall } from '../../../src/calls/line/lineCalls';
import { answerLineCall, reportLineStatus, reportTransferLeg, type LineReportDeps } from '../../../src/calls/line/lineReports';
import { originateRequestFor } from '../../../src/calls/originateRequest';
import { newId } from '../../../src/domain/ids';
import { useTestApi } from '../../support/app';
import { pollCall, scriptCallee } from '../../support/calls';
import { bearer } from '../../support/http';
import { RecordingLineControl } from '../../support/recordingLineControl';

jest.setTimeout(90_000);

/**
 * The line policy (src/calls/line/lineReports.ts, inboundLine.ts) called as a provider adapter
 * calls it, with neutral inputs and no provider: the real database, real call workflows on a
 * ringing simulated line where the workflow's answer matters, and a LineControl that notes
 * what the policy asked of the network.
 */
describe('the line policy, without a provider', () => {
  const { api, ws } = useTestApi({ worker: true });
  let lineControl: RecordingLineControl;
  let deps: LineReportDeps;
  beforeEach(() => {
    lineControl = new RecordingLineControl();
    deps = { db: api.db, temporal: api.temporal, lineControl };
  });
  let n = 0;
  const destination = () => `+9198118${String(Date.now() % 1000).padStart(3, '0')}${String(++n).padStart(2, '0')}`;

  /** A line call as an adapter stores it; its call has no workflow (a signal answers `finished`). */
  async function lineCallWithoutWorkflow(providerCallId: string | null = null): Promise<string> {
    const at = new Date();
    const callId = newId('call', at);
    await saveLineCall(api.db, {
      _id: callId,
      tenant_id: ws.workspaceId,
      provider: 'test-line',
      provider_call_id: providerCallId,
      request: { callId, tenantId: ws.workspaceId, direction: 'outbound', to: '+919811800000', fromNumber: '919811899999', agentId: 'bot_x', ringSeconds: 30, opening: 'Hello', purpose: null, script: null, detailLines: [], capture: null, requestedAt: at.toISOString() },
      recording: false,
      recording_uri: null,
      created_at: at,
    });
    return callId;
  }

  /** A call ringing for a minute on the simulated line, with its line call stored as a real line's adapter would. */
  async function ringingLineCall(): Promise<string> {
    const to = destination();
    await scriptCallee(api, ws, to, { answer: false, ring_seconds: 60 });
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: 'confirming tomorrow’s delivery', ring_seconds: 60 });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      if ((await callCollections(api.db).calls.findOne({ _id: callId }))?.placed_at) break;
    }
    const call = (await callCollections(api.db).calls.findOne({ _id: callId }))!;
    expect(call.placed_at).toBeTruthy();
    await saveLineCall(api.db, {
      _id: callId,
      tenant_id: call.tenant_id,
      provider: 'test-line',
      provider_call_id: `P-${callId}`,
      request: originateRequestFor(call, new Date().toISOString()),
      recording: false,
      recording_uri: null,
      created_at: new Date(),
    });
    return callId;
  }

  it('a report of a call that is none of ours: unknown_call, by our id or the provider’s, and nothing asked of the line', async () => {
    const report = { childLeg: false, event: { kind: 'answered' as const }, machineAnswered: true };
    expect(await reportLineStatus(deps, { ...report, callId: 'call_none', providerCallId: 'P-none' })).toBe('unknown_call');
    expect(await reportLineStatus(deps, { ...report, callId: null, providerCallId: 'P-none' })).toBe('unknown_call');
    expect(await reportLineStatus(deps, { ...report, callId: null, providerCallId: null })).toBe('unknown_call');
    expect(await answerLineCall(deps, { callId: 'call_none', providerCallId: null, answeredByMachine: false })).toEqual({ kind: 'hang_up' });
    expect(lineControl.requests).toEqual([]);
  });

  it('the first provider call id is recorded once; a child leg’s id is never the call’s; the recorded id finds the call', async () => {
    const callId = await lineCallWithoutWorkflow();
    const quiet = { event: null, machineAnswered: false };
    expect(await reportLineStatus(deps, { ...quiet, callId, providerCallId: 'P-leg', childLeg: true })).toBe('ignored');
    expect((await findLineCall(api.db, callId))!.provider_call_id).toBeNull();
    expect(await reportLineStatus(deps, { ...quiet, callId, providerCallId: 'P-first', childLeg: false })).toBe('ignored');
    expect(await reportLineStatus(deps, { ...quiet, callId, providerCallId: 'P-second', childLeg: false })).toBe('ignored');
    expect((await findLineCall(api.db, callId))!.provider_call_id).toBe('P-first');
    // A number's own callbacks carry no call id of ours: the provider's id finds the call, whose workflow is gone.
    expect(await reportLineStatus(deps, { callId: null, providerCallId: 'P-first', childLeg: false, event: { kind: 'answered' }, machineAnswered: false })).toBe('finished');
    expect(await answerLineCall(deps, { callId: null, providerCallId: 'P-first', answeredByMachine: false })).toEqual({ kind: 'stream', callId });
  });

  it('an end the call’s workflow caused (ended by us): the network’s report of it changes nothing', async () => {
    const callId = await lineCallWithoutWorkflow('P-ours');
    await markEndedByUs(api.db, callId, new Date());
    // Signalled, the workflow-less call would answer `finished`.
    expect(await reportLineStatus(deps, { callId, providerCallId: 'P-ours', childLeg: false, event: { kind: 'ended', outcome: 'caller_hangup' }, machineAnswered: false })).toBe('ended_by_us');
    expect(await reportLineStatus(deps, { callId, providerCallId: 'P-ours', childLeg: false, event: { kind: 'ended', outcome: 'busy' }, machineAnswered: false })).toBe('ended_by_us');
    // What is not an end still reaches the workflow (here: gone).
    expect(await reportLineStatus(deps, { callId, providerCallId: 'P-ours', childLeg: false, event: { kind: 'answered' }, machineAnswered: false })).toBe('finished');
  });

  it('a completed call whose agent missed the line (no media note within the grace): setup_error, not the caller’s hang-up', async () => {
    const callId = await ringingLineCall();
    const answered = new Date(Date.now() - 2_000).toISOString();
    expect(await reportLineStatus(deps, { callId, providerCallId: `P-${callId}`, childLeg: false, event: { kind: 'answered', at: answered }, machineAnswered: false })).toBe('reported');
    expect(await reportLineStatus(deps, { callId, providerCallId: `P-${callId}`, childLeg: false, event: { kind: 'ended', outcome: 'caller_hangup', at: new Date().toISOString(), answeredAt: answered }, machineAnswered: false })).toBe('reported');
    const call = await pollCall(api, ws.key, callId, (c) => c.status === 'completed', 40_000);
    expect(call.outcome).toBe('setup_error');
    expect(lineControl.requests).toEqual([]);
  });

  it('a completed call whose bridge noted its stream’s end: the caller’s hang-up stands', async () => {
    const callId = await ringingLineCall();
    const answered = new Date(Date.now() - 2_000).toISOString();
    await markMedia(api.db, callId, 'started', new Date());
    await markMedia(api.db, callId, 'ended', new Date());
    expect(await reportLineStatus(deps, { callId, providerCallId: `P-${callId}`, childLeg: false, event: { kind: 'answered', at: answered }, machineAnswered: false })).toBe('reported');
    expect(await reportLineStatus(deps, { callId, providerCallId: `P-${callId}`, childLeg: false, event: { kind: 'ended', outcome: 'caller_hangup', at: new Date().toISOString(), answeredAt: answered }, machineAnswered: false })).toBe('reported');
    const call = await pollCall(api, ws.key, callId, (c) => c.status === 'completed', 40_000);
    expect(call.outcome).toBe('caller_hangup');
  });

  it('a completed call whose bridge lost its stream: the line’s report, landing before the bridge tells the call, says setup_error too', async () => {
    const callId = await ringingLineCall();
    const answered = new Date(Date.now() - 2_000).toISOString();
    await markMedia(api.db, callId, 'started', new Date());
    // The bridge's note of a dropped stream's end, written before it signals `setup_error` itself (not sent here).
    await markMedia(api.db, callId, 'ended', new Date(), true);
    expect(await reportLineStatus(deps, { callId, providerCallId: `P-${callId}`, childLeg: false, event: { kind: 'answered', at: answered }, machineAnswered: false })).toBe('reported');
    expect(await reportLineStatus(deps, { callId, providerCallId: `P-${callId}`, childLeg: false, event: { kind: 'ended', outcome: 'caller_hangup', at: new Date().toISOString(), answeredAt: answered }, machineAnswered: false })).toBe('reported');
    const call = await pollCall(api, ws.key, callId, (c) => c.status === 'completed', 40_000);
    expect(call.outcome).toBe('setup_error');
  });

  it('a machine that answered: the workflow is told no_answer, then the line is hung up through the LineControl port', async () => {
    const callId = await ringingLineCall();
    const outcomeWhenHungUp: (string | null)[] = [];
    // The hang-up comes after the workflow was told why: by then the signal is in its history.
    lineControl.onRequest = async (id) => {
      const handle = api.temporal.workflow.getHandle(id);
      const history = await handle.fetchHistory();
      outcomeWhenHungUp.push(history.events!.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'lineEvent') ? 'signalled' : null);
    };
    expect(await reportLineStatus(deps, { callId, providerCallId: `P-${callId}`, childLeg: false, event: { kind: 'ended', outcome: 'no_answer' }, machineAnswered: true })).toBe('reported');
    expect(lineControl.requests).toEqual([{ kind: 'end', callId }]);
    expect(outcomeWhenHungUp).toEqual(['signalled']);
    const call = await pollCall(api, ws.key, callId, (c) => c.status === 'completed', 40_000);
    expect(call.outcome).toBe('no_answer');
  });

  it('an answer request a machine took: hang up, its workflow told no_answer; a person: the stream to the agent', async () => {
    const callId = await ringingLineCall();
    expect(await answerLineCall(deps, { callId, providerCallId: null, answeredByMachine: false })).toEqual({ kind: 'stream', callId });
    expect(await answerLineCall(deps, { callId, providerCallId: null, answeredByMachine: true })).toEqual({ kind: 'hang_up' });
    const call = await pollCall(api, ws.key, callId, (c) => c.status === 'completed', 40_000);
    expect(call.outcome).toBe('no_answer');
    expect(lineControl.requests).toEqual([]);
  });

  it('a hand-over leg without our call id or a meaning is ignored', async () => {
    expect(await reportTransferLeg(deps, null, { kind: 'human_active' })).toBe('ignored');
    expect(await reportTransferLeg(deps, 'call_none', null)).toBe('ignored');
    expect(await reportTransferLeg(deps, 'call_none', { kind: 'human_active' })).toBe('finished');
  });

  it('an inbound call to a number that is not ours is rejected; a repeated request answers the call it started', async () => {
    const inbound = { db: api.db, temporal: api.temporal, config: api.config, now: () => new Date() };
    expect(await acceptInboundLineCall(inbound, { provider: 'test-line', providerCallId: 'P-stranger', from: '+919811800001', to: '+1 000 000 0000' })).toEqual({ kind: 'reject' });
    const callId = await lineCallWithoutWorkflow('P-inbound');
    expect(await acceptInboundLineCall(inbound, { provider: 'test-line', providerCallId: 'P-inbound', from: '+919811800001', to: '+1 000 000 0000' })).toEqual({ kind: 'stream', callId });
  });
});
