import request from 'supertest';
import { liveCallCount, takeLiveSlot } from '../../../src/calls/admission';
import { callCollections, newCallDoc } from '../../../src/calls/callStore';
import { requestCallId } from '../../../src/calls/placeCall';
import { IdempotencyStore } from '../../../src/idempotency/store';
import { useTestApi } from '../../support/app';
import { pollCall, scriptCallee } from '../../support/calls';
import { bearer } from '../../support/http';

jest.setTimeout(60_000);

/**
 * Issue 32 §2: POST /calls whose API process died mid-request (after it wrote the call, before
 * it stored its answer under the Idempotency-Key) was retried with the same key; the retry took
 * the key over and placed a second call (two records; the first stayed ringing holding a
 * place). A retried request with the same key creates at most one call, whichever process
 * finishes it.
 */
describe('POST /calls retried with its Idempotency-Key after the first request died mid-way', () => {
  const { api, ws } = useTestApi({ worker: true });
  let n = 0;
  const destination = () => `+9198116${String(Date.now() % 1000).padStart(3, '0')}${String(++n).padStart(2, '0')}`;
  const scope = (idempotencyKey: string) => ({ tenantId: ws.workspaceId, keyId: ws.keyId, endpoint: 'POST /api/v1/calls', idempotencyKey });
  const post = (key: string, body: Record<string, unknown>) => request(api.server).post('/api/v1/calls').set(bearer(ws.key)).set('Idempotency-Key', key).send(body);
  /** What a request that died leaves of its key: still running, its lease lapsed, its answer never stored. */
  async function leftByADeadRequest(key: string, firstAt?: Date): Promise<void> {
    const past = new Date(Date.now() - 60_000);
    await api.db.collection('idempotency_keys').updateOne(
      { _id: IdempotencyStore.id(scope(key)) as never },
      { $set: { state: 'in_progress', owner: 'req_died', response: null, lease_until: past, ...(firstAt ? { created_at: firstAt } : {}) } },
    );
  }
  const callsTo = (to: string) => callCollections(api.db).calls.find({ to }).toArray();

  afterEach(async () => {
    // Hang up what is still ringing, so each test starts with every place free.
    for (const call of await callCollections(api.db).calls.find({ tenant_id: ws.workspaceId, status: 'ringing' }).toArray()) {
      await request(api.server).post(`/api/v1/calls/${call._id}/hangup`).set(bearer(ws.key));
      await pollCall(api, ws.key, call._id, (c) => c.status !== 'ringing');
    }
  });

  it('the retry that takes the key over answers the same call: one record, one workflow, one place', async () => {
    const to = destination();
    await scriptCallee(api, ws, to, { answer: false, ring_seconds: 60 });
    const body = { to, purpose: 'confirming tomorrow’s delivery', ring_seconds: 60 };
    const first = await post('k-died-after-start', body);
    expect(first.status).toBe(201);
    const callId: string = first.body.call_id;
    await leftByADeadRequest('k-died-after-start');

    const retry = await post('k-died-after-start', body);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body.call_id).toBe(callId);
    expect((await callsTo(to)).map((c) => c._id)).toEqual([callId]);
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(1);
    expect((await api.temporal.workflow.getHandle(callId).describe()).status.name).toBe('RUNNING');
    // The retry's answer is the key's from now on.
    const replay = await post('k-died-after-start', body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.call_id).toBe(callId);
  });

  it('a request that died after writing the call and before starting its workflow: the retry starts it, and no second call is written', async () => {
    const to = destination();
    await scriptCallee(api, ws, to, { answer: false, ring_seconds: 60 });
    const body = { to, purpose: 'confirming tomorrow’s delivery', ring_seconds: 60 };
    const key = 'k-died-before-start';
    const store = new IdempotencyStore(api.db);
    const firstAt = new Date(Date.now() - 10_000);
    // The dead request: its claim, its live place and its call written; no workflow.
    const claim = await store.claim(scope(key), Buffer.from(JSON.stringify(body)), 'req_died', firstAt);
    expect(claim).toMatchObject({ kind: 'claimed' });
    const callId = requestCallId({ recordId: IdempotencyStore.id(scope(key)), firstAt });
    expect(await takeLiveSlot(api.db, ws.workspaceId, callId, firstAt)).toBe(true);
    await callCollections(api.db).calls.insertOne(
      newCallDoc({
        _id: callId,
        tenant_id: ws.workspaceId,
        direction: 'outbound',
        status: 'ringing',
        to,
        from_number: ws.phoneNumber.replace(/\D/g, ''),
        agent_id: ws.agentId,
        requested_agent_id: null,
        deployment_id: 'dep_died_before_start',
        purpose: body.purpose,
        ring_seconds: 60,
        max_call_seconds: 600,
        recording: false,
        created_at: firstAt,
      }),
    );
    await leftByADeadRequest(key, firstAt);

    const retry = await post(key, body);
    expect(retry.status).toBe(201);
    expect(retry.body.call_id).toBe(callId);
    expect((await callsTo(to)).map((c) => c._id)).toEqual([callId]);
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(1);
    expect((await api.temporal.workflow.getHandle(callId).describe()).status.name).toBe('RUNNING');
  });
});
