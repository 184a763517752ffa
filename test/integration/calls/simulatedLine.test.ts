import { Client, Connection } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { LineEvent } from '../../../src/calls/voiceLine';
import {
  LINE_SWEEP_GRACE_MS,
  pendingLineEventsCollection,
  SimulatedLineScheduler,
  type ReportLineEvent,
  type ScheduledLineEvent,
} from '../../../src/providers/voice/simulatedLine';
import { SimulatedVoiceProvider } from '../../../src/providers/voice/simulatedVoiceProvider';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { openTestDb, testConfig, testServers, uniqueName } from '../../support/env';
import { eventually } from '../../support/messaging';
import { startWorkerProcess } from '../../support/worker';

/**
 * The simulated callee's line events without a workflow per call
 * (src/providers/voice/simulatedLine.ts): one stored document per call, reported in order at
 * their due times by the process that placed it, stopped by a hang-up from any process or by a
 * finished call, taken over by a sweep when that process is gone.
 */
describe('simulated line events (src/providers/voice/simulatedLine.ts)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  const config = testConfig();
  const failures: unknown[] = [];
  afterEach(() => expect(failures).toEqual([]));

  /** What a scheduler reported, per call, with the time it reported it. */
  const reported = new Map<string, { event: LineEvent; at: number }[]>();
  /** Calls the fake call workflow treats as finished. */
  const finished = new Set<string>();
  const report: ReportLineEvent = async (callId, event) => {
    if (finished.has(callId)) return 'finished';
    reported.set(callId, [...(reported.get(callId) ?? []), { event, at: Date.now() }]);
    return 'reported';
  };
  const newScheduler = () => new SimulatedLineScheduler(db, report, (err) => void failures.push(err));
  const pendingCount = (callId: string) => pendingLineEventsCollection(db).countDocuments({ _id: callId });
  const kinds = (callId: string) => (reported.get(callId) ?? []).map((r) => r.event.kind);

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(config));
  });

  afterAll(async () => {
    await drop?.();
  });

  const steps = (start: number, ...events: [LineEvent, number][]): ScheduledLineEvent[] => events.map(([event, ms]) => ({ event, due_at: new Date(start + ms) }));

  it('reports each event in order at its due time, once, and leaves nothing pending', async () => {
    const scheduler = newScheduler();
    const callId = uniqueName('call');
    const start = Date.now();
    const input = {
      tenantId: 'ws_1',
      callId,
      steps: steps(start, [{ kind: 'answered' }, 100], [{ kind: 'human_handoff' }, 400], [{ kind: 'human_active' }, 700], [{ kind: 'ended', outcome: 'caller_hangup' }, 1_000]),
    };
    await scheduler.schedule(input);
    await scheduler.schedule(input); // a retried originate schedules nothing more
    await eventually(async () => (await pendingCount(callId)) === 0, 'every event reported');
    const got = reported.get(callId)!;
    // Each stamped with its planned time, however late it went out (issue 26).
    expect(got.map((r) => r.event)).toEqual(input.steps.map((s) => ({ ...s.event, at: s.due_at.toISOString() })));
    // Never before its due time, and each at least its planned gap after the one before (the
    // workflow's waits began once the previous signal was taken).
    for (const [i, r] of got.entries()) {
      expect(r.at).toBeGreaterThanOrEqual(input.steps[i]!.due_at.getTime());
      if (i > 0) expect(r.at - got[i - 1]!.at).toBeGreaterThanOrEqual(input.steps[i]!.due_at.getTime() - input.steps[i - 1]!.due_at.getTime());
    }
  });

  it('a hang-up stops the rest, here and in another process that runs the chain', async () => {
    const here = newScheduler();
    const elsewhere = newScheduler();
    const start = Date.now();
    const [a, b] = [uniqueName('call'), uniqueName('call')];
    // The end is due well after the answer: both hang-ups (database deletes, slow on a loaded machine) must land before it.
    const line = steps(start, [{ kind: 'answered' }, 50], [{ kind: 'ended', outcome: 'caller_hangup' }, 6_000]);
    await here.schedule({ tenantId: 'ws_1', callId: a, steps: line });
    await here.schedule({ tenantId: 'ws_1', callId: b, steps: line });
    await eventually(async () => kinds(a).length === 1 && kinds(b).length === 1, 'both answered');
    expect(await here.hangup(a)).toBe(true); // the process running the chain
    expect(await elsewhere.hangup(b)).toBe(true); // another process: the document is gone
    expect(await here.hangup(a)).toBe(false); // again: nothing was pending
    // Past when each end would have gone out (its gap runs from its answer's report).
    const lastAnswer = Math.max(...[a, b].map((id) => reported.get(id)![0]!.at));
    await new Promise((resolve) => setTimeout(resolve, lastAnswer + 6_000 - 50 + 300 - Date.now()));
    expect([kinds(a), kinds(b)]).toEqual([['answered'], ['answered']]);
    expect([await pendingCount(a), await pendingCount(b)]).toEqual([0, 0]);
  });

  it('a finished call stops the chain and its document', async () => {
    const scheduler = newScheduler();
    const callId = uniqueName('call');
    finished.add(callId);
    await scheduler.schedule({ tenantId: 'ws_1', callId, steps: steps(Date.now(), [{ kind: 'answered' }, 0], [{ kind: 'ended', outcome: 'idle' }, 100]) });
    await eventually(async () => (await pendingCount(callId)) === 0, 'the document gone');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reported.get(callId)).toBeUndefined();
  });

  it('a sweep takes over, from its next event on, a call whose process died; one not yet late enough is left', async () => {
    const scheduler = newScheduler();
    const long = Date.now() - LINE_SWEEP_GRACE_MS - 5_000;
    const [orphan, recent] = [uniqueName('call'), uniqueName('call')];
    const orphanSteps = steps(long, [{ kind: 'answered' }, 0], [{ kind: 'human_handoff' }, 100], [{ kind: 'ended', outcome: 'agent_hangup' }, 200]);
    await pendingLineEventsCollection(db).insertMany([
      { _id: orphan, tenant_id: 'ws_1', steps: orphanSteps, next: 1, due_at: orphanSteps[1]!.due_at },
      { _id: recent, tenant_id: 'ws_1', steps: steps(Date.now(), [{ kind: 'answered' }, 0]), next: 0, due_at: new Date() },
    ]);
    expect(await scheduler.sweepOnce()).toBe(1);
    await eventually(async () => (await pendingCount(orphan)) === 0, 'the orphan done');
    expect(kinds(orphan)).toEqual(['human_handoff', 'ended']);
    expect(await pendingCount(recent)).toBe(1);
    expect(reported.get(recent)).toBeUndefined();
    await pendingLineEventsCollection(db).deleteOne({ _id: recent });
  });

  it('a sweep leaves a hung-up call alone: the hang-up deleted what it would take over', async () => {
    const scheduler = newScheduler();
    const callId = uniqueName('call');
    const long = Date.now() - LINE_SWEEP_GRACE_MS - 5_000;
    const line = steps(long, [{ kind: 'answered' }, 0], [{ kind: 'ended', outcome: 'agent_hangup' }, 100]);
    await pendingLineEventsCollection(db).insertOne({ _id: callId, tenant_id: 'ws_1', steps: line, next: 0, due_at: line[0]!.due_at });
    expect(await newScheduler().hangup(callId)).toBe(true);
    expect(await scheduler.sweepOnce()).toBe(0);
    expect(reported.get(callId)).toBeUndefined();
  });

  it('through the real Temporal client, a call that is not running counts as finished (nothing left to tell it)', async () => {
    const connection = await Connection.connect({ address: testServers.temporalAddress() });
    try {
      const provider = new SimulatedVoiceProvider(db, new Client({ connection }), 'unused', { onLineError: (err) => void failures.push(err) });
      const callId = uniqueName('call');
      const long = Date.now() - LINE_SWEEP_GRACE_MS - 5_000;
      const line = steps(long, [{ kind: 'answered' }, 0], [{ kind: 'ended', outcome: 'agent_hangup' }, 100]);
      await pendingLineEventsCollection(db).insertOne({ _id: callId, tenant_id: 'ws_1', steps: line, next: 0, due_at: line[0]!.due_at });
      expect(await provider.line.sweepOnce()).toBe(1);
      await eventually(async () => (await pendingCount(callId)) === 0, 'the document gone');
    } finally {
      await connection.close();
    }
  });

  it('the worker process sweeps: a call left by a dead process is taken over (here one no longer running, so it stops)', async () => {
    const callId = uniqueName('call');
    const long = Date.now() - LINE_SWEEP_GRACE_MS - 5_000;
    const line = steps(long, [{ kind: 'answered' }, 0]);
    await pendingLineEventsCollection(db).insertOne({ _id: callId, tenant_id: 'ws_1', steps: line, next: 0, due_at: line[0]!.due_at });
    let child: ManagedProcess | null = null;
    try {
      child = await startWorkerProcess(config, { logName: 'line-sweep-worker' });
      await eventually(async () => (await pendingCount(callId)) === 0, 'the worker to take the call over', 30_000);
    } finally {
      await child?.stop();
    }
  }, 90_000);
});
