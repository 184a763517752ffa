import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import type { CommandStartedEvent, Db } from 'mongodb';
import { createCallActivities } from '../../../activities/calls';
import { READER_HEARTBEAT_INTERVAL_MS } from '../../../src/calls/contracts';
import { callCollections, deploymentId, newCallDoc } from '../../../src/calls/callStore';
import { newId } from '../../../src/domain/ids';
import type { EventDoc, EventInput } from '../../../src/events/eventStore';
import type { EventPublisher } from '../../../src/events/publisher';
import { connectMongo } from '../../../src/db/mongo';
import type { CallReader } from '../../../src/calls/reader';
import type { VoiceProvider } from '../../../src/calls/voiceLine';
import { FailureType } from '../../../src/temporal/failures';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { openTestDb, testConfig } from '../../support/env';
import { eventually } from '../../support/messaging';
import { FEATURE_HOOKS } from '../../../src/main/featureHooks';

/** The call activities' failure and cancellation behaviour, run in the SDK's mock activity context against FerretDB. */
describe('call activities', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let events: EventPublisher;
  let voice: VoiceProvider;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    // Only the reader is exercised; the rest is the production wiring (never reached here).
    ({ events, voice } = buildActivityDeps({ db, temporal: {} as Client, taskQueue: 'unused' }));
  });

  afterAll(async () => {
    await drop?.();
  });

  const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

  async function storedCall(): Promise<string> {
    const callId = newId('call');
    await callCollections(db).calls.insertOne(
      newCallDoc({
        _id: callId,
        tenant_id: 'ws_reader',
        direction: 'outbound',
        status: 'completed',
        to: '+919800000001',
        from_number: '919800000000',
        agent_id: 'agt_reader',
        requested_agent_id: null,
        deployment_id: deploymentId('919800000000', 'agt_reader'),
        ring_seconds: 30,
        max_call_seconds: 300,
        recording: false,
        created_at: new Date(),
      }),
    );
    return callId;
  }

  it('a call without a read model is a non-retryable ReadModelMissing failure, not a retried Error', async () => {
    const reader: CallReader = { read: () => Promise.reject(new Error('not reached')) };
    const activities = createCallActivities({ db, events, voice, reader, callHooks: FEATURE_HOOKS.calls });
    const env = new MockActivityEnvironment({}, { logger: quiet });
    const failure = await env.run((...args: Parameters<typeof activities.placeCall>) => activities.placeCall(...args), { callId: 'call_missing', requestedAt: new Date().toISOString() }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: FailureType.ReadModelMissing, nonRetryable: true, message: 'call call_missing has no read model' });
  });

  it('the reader activity heartbeats while it waits, and its cancellation aborts the reader', async () => {
    let seenSignal: AbortSignal | undefined;
    const reader: CallReader = {
      read: (_input, options) =>
        new Promise((_resolve, reject) => {
          seenSignal = options?.signal;
          options?.signal?.addEventListener('abort', () => reject(new Error('aborted by the activity')));
        }),
    };
    const activities = createCallActivities({ db, events, voice, reader, callHooks: FEATURE_HOOKS.calls });
    const env = new MockActivityEnvironment({ attempt: 1 }, { logger: quiet });
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const callId = await storedCall();

    const reading = env.run((...args: Parameters<typeof activities.readCall>) => activities.readCall(...args), { callId }).catch((err: unknown) => err);
    // One heartbeat as it starts, then one per interval while the reader has not answered.
    // Waited for rather than slept: the first beat follows the call's read, which a loaded machine may delay past the margin.
    await eventually(async () => heartbeats >= 2, 'a second heartbeat', 3 * READER_HEARTBEAT_INTERVAL_MS);
    expect(seenSignal?.aborted).toBe(false);

    env.cancel();
    const outcome = await reading;
    expect(seenSignal?.aborted).toBe(true);
    // Reported as the cancellation it is, not as a reader failure to retry.
    expect(outcome).toBeInstanceOf(CancelledFailure);
    const after = heartbeats;
    await new Promise((r) => setTimeout(r, 200));
    expect(heartbeats).toBe(after);
  });
  it('call.started is published from the call as written: one round trip on calls (issue 28), with placed_at and status set', async () => {
    // A second client on the same database, watching its commands.
    const watched = await connectMongo({ MONGODB_URL: testConfig().MONGODB_URL, MONGODB_DB: db.databaseName }, 'test-call-activities', { monitorCommands: true });
    try {
      const onCalls: string[] = [];
      watched.client.on('commandStarted', (e: CommandStartedEvent) => {
        if (e.command[e.commandName] === 'calls') onCalls.push(e.commandName);
      });
      const published: EventInput[] = [];
      const capture: EventPublisher = { ...events, publish: (input) => (published.push(input), Promise.resolve({} as EventDoc)) };
      const reader: CallReader = { read: () => Promise.reject(new Error('not reached')) };
      const activities = createCallActivities({ db: watched.db, events: capture, voice, reader, callHooks: FEATURE_HOOKS.calls });
      const callId = await storedCall();
      const at = new Date('2026-11-25T10:00:00.000Z');
      const placed = () =>
        new MockActivityEnvironment({}, { logger: quiet }).run((progress: Parameters<typeof activities.recordCallProgress>[0]) => activities.recordCallProgress(progress), {
          callId,
          step: 2,
          status: 'ringing' as const,
          at: at.toISOString(),
          placed: true,
        });
      await placed();
      expect(onCalls).toEqual(['findAndModify']);
      expect(published).toHaveLength(1);
      expect(published[0]).toMatchObject({ type: 'call.started', dedupeKey: `call.started:${callId}`, data: { call_id: callId, status: 'ringing', placed_at: '2026-11-25T10:00:00Z' } });
      // A retry whose write no longer applies reads the call and publishes the same event (deduplicated by its key).
      onCalls.length = 0;
      await placed();
      expect(onCalls).toEqual(['findAndModify', 'find']);
      expect(published[1]).toMatchObject({ dedupeKey: `call.started:${callId}`, data: { placed_at: '2026-11-25T10:00:00Z' } });
    } finally {
      await watched.client.close();
    }
  });
});
