import type { Db } from 'mongodb';
import { FEATURE_HOOKS } from '../../../src/main/featureHooks';
import { callCollections, deploymentId, newCallDoc } from '../../../src/calls/callStore';
import { finishCall } from '../../../src/calls/finishCall';
import { newId } from '../../../src/domain/ids';
import type { EventDoc, EventInput } from '../../../src/events/eventStore';
import type { EventPublisher } from '../../../src/events/publisher';
import type { VoiceProvider } from '../../../src/calls/voiceLine';
import { openTestDb, testConfig } from '../../support/env';

/**
 * The call's finish step is a use case (src/calls/finishCall.ts, issue 25): called here as a
 * plain function against FerretDB, with no Temporal worker or activity context; the
 * activity's log is a callback.
 */
describe('finishCall without Temporal', () => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });
  afterAll(async () => {
    await drop?.();
  });

  it('ends an unanswered call, reports a failed call-end hook through `warn`, publishes call.ended and answers `unanswered`', async () => {
    const callId = newId('call');
    await callCollections(db).calls.insertOne(
      newCallDoc({
        _id: callId,
        tenant_id: 'ws_finish',
        direction: 'inbound',
        status: 'ringing',
        to: '+919800000001',
        from_number: '919800000000',
        agent_id: 'agt_finish',
        requested_agent_id: null,
        deployment_id: deploymentId('919800000000', 'agt_finish'),
        ring_seconds: 30,
        max_call_seconds: 300,
        recording: false,
        created_at: new Date(),
      }),
    );
    const hooks = { ...FEATURE_HOOKS.calls, ended: [...FEATURE_HOOKS.calls.ended, () => Promise.reject(new Error('hook down'))] };
    const published: EventInput[] = [];
    const events: EventPublisher = { publish: (input) => (published.push(input), Promise.resolve({} as EventDoc)) };
    const voice = { transcript: () => Promise.reject(new Error('an unanswered call has no transcript')) } as unknown as VoiceProvider;
    const warnings: Array<[string, Record<string, unknown>]> = [];

    const finished = await finishCall(
      { db, events, voice, hooks, warn: (message, meta) => warnings.push([message, meta]) },
      { callId, step: 5, status: 'completed', outcome: 'no_answer', answeredAt: null, endedAt: '2026-01-02T03:04:05.000Z' },
    );

    expect(finished).toEqual({ decided: 'unanswered' });
    const call = await callCollections(db).calls.findOne({ _id: callId });
    expect(call).toMatchObject({ status: 'completed', outcome: 'no_answer', step: 5, duration_seconds: 0, ended_at: new Date('2026-01-02T03:04:05.000Z'), transcript: [] });
    expect(warnings).toEqual([['a call-end hook failed; a campaign run finds the place at its poll', { callId, error: 'Error: hook down' }]]);
    expect(published.map((e) => [e.type, e.tenantId])).toEqual([['call.ended', 'ws_finish']]);
  });
});
