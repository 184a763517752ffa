import request from 'supertest';
import { callCollections } from '../../../src/calls/callStore';
import { signalLineEvent } from '../../../src/calls/line/signalLine';
import type { LineEvent } from '../../../src/calls/voiceLine';
import { useTestApi } from '../../support/app';
import { pollCall, scriptCallee } from '../../support/calls';
import { bearer } from '../../support/http';

jest.setTimeout(60_000);

/**
 * Issue 32 §4: the realtime model refused a call the person had answered. The media bridge
 * reported the end (`setup_error`) at once, before Twilio's `answered` status callback reached
 * the call's workflow, and the call read as never answered: never `in_progress`, 0 s, though
 * the person heard a second of silence and Twilio bills it. The answer and the duration are
 * recorded as the line reported them. Here the line's events are signalled as the bridge and
 * the status route send them, in the order they arrived (a ringing simulated call whose callee
 * reports nothing itself).
 */
describe('an end taken before the line’s report of the answer', () => {
  const { api, ws } = useTestApi({ worker: true });
  let n = 0;
  const destination = () => `+9198117${String(Date.now() % 1000).padStart(3, '0')}${String(++n).padStart(2, '0')}`;

  /** A call ringing for a minute, placed more than 3 s ago (the line's times below fall after its start). */
  async function ringingCall(): Promise<string> {
    const to = destination();
    await scriptCallee(api, ws, to, { answer: false, ring_seconds: 60 });
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: 'confirming tomorrow’s delivery', ring_seconds: 60 });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    for (const deadline = Date.now() + 60_000; !(await callCollections(api.db).calls.findOne({ _id: callId }))?.placed_at; await new Promise((r) => setTimeout(r, 200))) {
      if (Date.now() > deadline) throw new Error(`call ${callId} never placed`);
    }
    await new Promise((r) => setTimeout(r, 3_500));
    return callId;
  }
  const report = async (callId: string, events: LineEvent[]) => {
    for (const event of events) expect(await signalLineEvent(api.temporal, callId, event)).toBe('reported');
  };
  const iso = (ms: number) => new Date(ms).toISOString();
  /** The timers the call's workflow started after it took the line's first `ended`, as '<seconds> s'. */
  async function timersAfterTheEnd(callId: string): Promise<string[]> {
    await api.temporal.workflow.getHandle(callId).result();
    const events = (await api.temporal.workflow.getHandle(callId).fetchHistory()).events ?? [];
    const end = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'lineEvent');
    expect(end).toBeGreaterThan(0);
    return events.slice(end).flatMap((e) => (e.timerStartedEventAttributes ? [`${Number(e.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0)} s`] : []));
  }

  it('the bridge’s setup_error, then Twilio’s answered and completed: answered at the line’s answer, ended at its end, 2 s', async () => {
    const callId = await ringingCall();
    const now = Date.now();
    const answered = now - 2_200;
    await report(callId, [
      { kind: 'ended', outcome: 'setup_error', at: iso(now - 600) },
      { kind: 'answered', at: iso(answered) },
      { kind: 'ended', outcome: 'caller_hangup', at: iso(now - 300), answeredAt: iso(answered) },
    ]);
    const call = await pollCall(api, ws.key, callId, (c) => c.result.state !== 'pending');
    expect(call).toMatchObject({ status: 'completed', outcome: 'setup_error', duration_seconds: 2, result: { state: 'ready', disposition: 'no_conversation' } });
    const stored = await callCollections(api.db).calls.findOne({ _id: callId });
    expect(stored!.started_at?.toISOString()).toBe(iso(answered));
    expect(stored!.ended_at?.toISOString()).toBe(iso(now - 300));
    // Minutes billed for the connected call, as the provider bills it.
    expect(stored!.billed_minutes).toBe(1);
  });

  it('only Twilio’s answered comes after the bridge’s end: answered at it, ended at the bridge’s end', async () => {
    const callId = await ringingCall();
    const now = Date.now();
    await report(callId, [
      { kind: 'ended', outcome: 'setup_error', at: iso(now - 400) },
      { kind: 'answered', at: iso(now - 2_000) },
    ]);
    // The line's report of the end never comes: the workflow waits its grace (10 s) for it.
    const call = await pollCall(api, ws.key, callId, (c) => c.result.state !== 'pending', 40_000);
    expect(call).toMatchObject({ status: 'completed', outcome: 'setup_error', duration_seconds: 2 });
    const stored = await callCollections(api.db).calls.findOne({ _id: callId });
    expect(stored!.started_at?.toISOString()).toBe(iso(now - 2_000));
    expect(stored!.ended_at?.toISOString()).toBe(iso(now - 400));
  });

  it('an end with no answer that a connected call cannot have (busy) is still an unanswered call at once', async () => {
    const callId = await ringingCall();
    await report(callId, [{ kind: 'ended', outcome: 'busy', at: iso(Date.now() - 100) }]);
    const call = await pollCall(api, ws.key, callId, (c) => c.result.state !== 'pending');
    expect(call).toMatchObject({ status: 'completed', outcome: 'busy', duration_seconds: 0, started_at: null, result: { state: 'ready', disposition: 'unanswered' } });
    // At once: no wait for the line's report of an answer (the grace a connected end waits) after
    // the end was taken. Read from the history, not the clock, which a loaded machine stretches.
    expect(await timersAfterTheEnd(callId)).toEqual([]);
  });
});
