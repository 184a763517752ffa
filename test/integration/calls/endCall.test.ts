import type { CommandStartedEvent, Db } from 'mongodb';
import { connectMongo } from '../../../src/db/mongo';
import { FEATURE_HOOKS } from '../../../src/main/featureHooks';
import { callCollections, deploymentId, newCallDoc } from '../../../src/calls/callStore';
import { endCall, READ_IN_END_STEP_MS } from '../../../src/calls/endCall';
import type { CallReader } from '../../../src/calls/reader';
import { createSimulatedReader } from '../../../src/providers/reader/simulatedReader';
import { readerScriptFromCalleeScripts } from '../../../src/providers/voice/simulatorScript';
import { newId } from '../../../src/domain/ids';
import type { EventDoc, EventInput } from '../../../src/events/eventStore';
import { createEventPublisher, type EventPublisher } from '../../../src/events/publisher';
import type { VoiceProvider } from '../../../src/calls/voiceLine';
import { openTestDb, testConfig } from '../../support/env';

/**
 * `callLifecycle`'s end step (src/calls/endCall.ts, issue 36 §3) as a plain function against
 * FerretDB: an answered call finished and read in one step; a reader that does not answer in
 * time, or a real line's call, left to the reader's activity with the call finished.
 */
describe('endCall without Temporal', () => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });
  afterAll(async () => {
    await drop?.();
  });

  const talked = [
    { role: 'model' as const, text: 'Hello, is someone home tomorrow?', at_seconds: 0 },
    { role: 'user' as const, text: 'Yes, in the morning.', at_seconds: 3 },
  ];

  async function answeredCall(): Promise<string> {
    const callId = newId('call');
    await callCollections(db).calls.insertOne(
      newCallDoc({
        _id: callId,
        tenant_id: 'ws_endcall',
        direction: 'outbound',
        status: 'in_progress',
        to: '+919800000002',
        from_number: '919800000000',
        agent_id: 'agt_endcall',
        requested_agent_id: null,
        deployment_id: deploymentId('919800000000', 'agt_endcall'),
        ring_seconds: 30,
        max_call_seconds: 300,
        recording: false,
        created_at: new Date(),
      }),
    );
    return callId;
  }

  function deps(reader: CallReader, line: Partial<VoiceProvider> = {}) {
    const published: EventInput[] = [];
    const events: EventPublisher = { publish: (input) => (published.push(input), Promise.resolve({} as EventDoc)) };
    const voice = { transcript: () => Promise.resolve(talked), hangup: () => Promise.resolve(), ...line } as unknown as VoiceProvider;
    return { published, deps: { db, events, voice, reader, hooks: FEATURE_HOOKS.calls, warn: () => undefined } };
  }

  const end = (callId: string) => ({
    end: { callId, step: 9, status: 'completed' as const, outcome: 'caller_hangup' as const, answeredAt: '2026-01-02T03:04:00.000Z', endedAt: '2026-01-02T03:04:30.000Z' },
    hangUpLine: false,
    readAt: '2026-01-02T03:04:31.000Z',
  });

  it('finishes and reads an answered call in one step: result ready, its events in order', async () => {
    const callId = await answeredCall();
    const reads: string[] = [];
    const reader: CallReader = {
      read: (input) => (reads.push(input.callId), Promise.resolve({ disposition: 'completed', goal_met: 'yes', summary: 'Someone is home in the morning.', sentiment: 'positive', next_step: 'none', next_step_reason: null, answers: {} })),
    };
    const { published, deps: d } = deps(reader);
    expect(await endCall(d, end(callId))).toEqual({ resultState: 'ready' });
    expect(reads).toEqual([callId]);
    expect(await callCollections(db).calls.findOne({ _id: callId })).toMatchObject({ status: 'completed', outcome: 'caller_hangup', duration_seconds: 30, readings: 1, result: { state: 'ready', disposition: 'completed' } });
    expect(published.map((e) => e.type)).toEqual(['conversation.started', 'call.ended', 'call.outcome']);
  });

  it('the end of an answered call reads the call once (the simulated reader too), writes it twice (the end with its billed minutes, the result) does not read back the conversation it created, and stores call.ended with call.outcome (issue 36 §3)', async () => {
    const callId = await answeredCall();
    // A second client on the same database, watching its commands.
    const watched = await connectMongo({ MONGODB_URL: testConfig().MONGODB_URL, MONGODB_DB: db.databaseName }, 'test-end-commands', { monitorCommands: true });
    try {
      const commands: string[] = [];
      watched.client.on('commandStarted', (e: CommandStartedEvent) => commands.push(`${e.commandName} ${String(e.command[e.commandName])}`));
      // The production simulated reader, its scripts found from the read input (not the call read again).
      const reader = createSimulatedReader(readerScriptFromCalleeScripts(watched.db));
      // The production publisher, for a workspace no endpoint listens to, recording what it is given.
      const store = createEventPublisher(watched.db, { dispatch: () => Promise.resolve(), hasReceivers: () => Promise.resolve(false) });
      const published: EventInput[] = [];
      const events: EventPublisher = {
        publish: (input) => (published.push(input), store.publish(input)),
        publishAll: (inputs) => (published.push(...inputs), store.publishAll!(inputs)),
      };
      const { deps: d } = deps(reader);
      expect(await endCall({ ...d, db: watched.db, events }, end(callId))).toEqual({ resultState: 'ready' });
      const on = (collection: string) => commands.filter((c) => c.endsWith(` ${collection}`)).map((c) => c.split(' ')[0]);
      expect(on('calls')).toEqual(['find', 'update', 'update']);
      expect(on('conversations')).toEqual(['insert', 'update']);
      expect(on('conversation_entries').filter((c) => c === 'delete')).toEqual([]);
      // conversation.started, then call.ended with call.outcome in one write.
      expect(on('events')).toEqual(['insert', 'insert']);
      const stored = await db.collection<EventDoc>('events').find({ 'data.call_id': callId }).toArray();
      expect(stored.map((e) => e.type).sort()).toEqual(['call.ended', 'call.outcome']);

      expect(await callCollections(db).calls.findOne({ _id: callId })).toMatchObject({ status: 'completed', outcome: 'caller_hangup', duration_seconds: 30, billed_minutes: 1, readings: 1, result: { state: 'ready' } });
      // call.ended carries the call as it ended, though it was not read back.
      const ended = published.find((e) => e.type === 'call.ended')!;
      expect(ended.data).toMatchObject({ call_id: callId, status: 'completed', outcome: 'caller_hangup', duration_seconds: 30, started_at: '2026-01-02T03:04:00Z', ended_at: '2026-01-02T03:04:30Z' });
      expect(published.map((e) => e.type)).toEqual(['conversation.started', 'call.ended', 'call.outcome']);
      const conversation = await db.collection('conversations').findOne({ thread_key: callId });
      expect(conversation).toMatchObject({ channel: 'voice', started_event: true, message_count: 2 });
    } finally {
      await watched.client.close();
    }
  });

  it('an unanswered call’s end writes the call once: its result, decided without reading, goes with the end (issue 36 §3)', async () => {
    const callId = await answeredCall();
    const watched = await connectMongo({ MONGODB_URL: testConfig().MONGODB_URL, MONGODB_DB: db.databaseName }, 'test-end-unanswered', { monitorCommands: true });
    try {
      const commands: string[] = [];
      watched.client.on('commandStarted', (e: CommandStartedEvent) => commands.push(`${e.commandName} ${String(e.command[e.commandName])}`));
      const reader: CallReader = { read: () => Promise.reject(new Error('an unanswered call is not read')) };
      const { published, deps: d } = deps(reader);
      const unanswered = { end: { callId, step: 9, status: 'completed' as const, outcome: 'no_answer' as const, answeredAt: null, endedAt: '2026-01-02T03:04:30.000Z' }, hangUpLine: true, readAt: '2026-01-02T03:04:31.000Z' };
      expect(await endCall({ ...d, db: watched.db }, unanswered)).toEqual({ resultState: 'ready' });
      expect(commands.filter((c) => c.endsWith(' calls'))).toEqual(['find calls', 'update calls']);
      expect(await callCollections(db).calls.findOne({ _id: callId })).toMatchObject({
        status: 'completed',
        outcome: 'no_answer',
        duration_seconds: 0,
        readings: 1,
        result: { state: 'ready', disposition: 'unanswered', read_at: new Date('2026-01-02T03:04:31.000Z') },
      });
      expect(published.map((e) => e.type)).toEqual(['call.ended', 'call.outcome']);
      expect(published[1]!.data).toMatchObject({ call_id: callId, disposition: 'unanswered' });
    } finally {
      await watched.client.close();
    }
  });

  it(`a reader that has not answered in ${READ_IN_END_STEP_MS} ms is aborted and left to its activity: the call finished, its result pending`, async () => {
    const callId = await answeredCall();
    let aborted = false;
    const reader: CallReader = {
      // Never answers by itself; heeds its signal.
      read: (_input, options) =>
        new Promise((_resolve, reject) => {
          options?.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    };
    const { published, deps: d } = deps(reader);
    expect(await endCall(d, end(callId))).toEqual({ resultState: null });
    expect(aborted).toBe(true);
    expect(await callCollections(db).calls.findOne({ _id: callId })).toMatchObject({ status: 'completed', readings: 0, result: { state: 'pending' } });
    expect(published.map((e) => e.type)).toEqual(['conversation.started', 'call.ended']);
  }, 30_000);

  it('a real line’s call (one that reports an end twice) is noted as taken and not read in the step', async () => {
    const callId = await answeredCall();
    const taken: string[] = [];
    const reader: CallReader = { read: () => Promise.reject(new Error('a real line is read by the reader’s activity')) };
    const { published, deps: d } = deps(reader, { endTaken: (id: string) => (taken.push(id), Promise.resolve()) });
    expect(await endCall(d, end(callId))).toEqual({ resultState: null });
    expect(taken).toEqual([callId]);
    expect(await callCollections(db).calls.findOne({ _id: callId })).toMatchObject({ status: 'completed', result: { state: 'pending' } });
    expect(published.map((e) => e.type)).toEqual(['conversation.started', 'call.ended']);
  });
});
