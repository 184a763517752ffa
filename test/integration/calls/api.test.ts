import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { eventsCollection } from '../../../src/events/eventStore';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';
import { CONSOLE_AUTH, pollCall, scriptCallee } from '../../support/calls';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const FAST = { ring_seconds: 0.2, seconds_per_turn: 0.1 };

describe('the calls API over HTTP', () => {
  const { api, ws } = useTestApi({ worker: true });

  const place = (body: Record<string, unknown>, key = ws.key) => request(api.server).post('/api/v1/calls').set(bearer(key)).send(body);
  const get = (callId: string, key = ws.key) => request(api.server).get(`/api/v1/calls/${callId}`).set(bearer(key));
  const hangup = (callId: string, key = ws.key) => request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(key));
  const script = (destination: string, body: Record<string, unknown>, w = ws) => scriptCallee(api, w, destination, body);
  const until = (callId: string, done: (body: any) => boolean, key = ws.key) => pollCall(api, key, callId, done);
  const events = (callId: string, type: string) => eventsCollection(api.db).find({ type, 'data.call_id': callId }).toArray();
  /** A call's events of a type once there are `count`: the reading activity records a ready result before it appends `call.outcome`. */
  const eventsOnceThere = async (callId: string, type: string, count = 1) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const found = await events(callId, type);
      if (found.length >= count || Date.now() > deadline) return found;
      await new Promise((r) => setTimeout(r, 150));
    }
  };

  describe('request validation (400 Request validation failed.)', () => {
    it.each([
      [{ to: '+91 98111 22233' }, ['body', 'to']],
      [{ to: '98-111-22233' }, ['body', 'to']],
      [{ to: '+1234' }, ['body', 'to']],
      [{ to: '+123456789012345678901' }, ['body', 'to']],
      [{}, ['body', 'to']],
      [{ to: '+919811122233', ring_seconds: 9 }, ['body', 'ring_seconds']],
      [{ to: '+919811122233', ring_seconds: 91 }, ['body', 'ring_seconds']],
      [{ to: '+919811122233', ring_seconds: 30.5 }, ['body', 'ring_seconds']],
      [{ to: '+919811122233', purpose: 'p'.repeat(501) }, ['body', 'purpose']],
      [{ to: '+919811122233', script: 's'.repeat(4_001) }, ['body', 'script']],
      [{ to: '+919811122233', agent_id: 'a'.repeat(65) }, ['body', 'agent_id']],
      [{ to: '+919811122233', from_number: '1'.repeat(21) }, ['body', 'from_number']],
      [{ to: '+919811122233', details: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, ['body', 'details']],
      [{ to: '+919811122233', details: { nested: { a: 1 } } }, ['body', 'details', 'nested']],
      [{ to: '+919811122233', capture: { fields: [{ label: 'Pick', type: 'choice', options: ['One'] }] } }, ['body', 'capture', 'fields', 0, 'options']],
      [{ to: '+919811122233', capture: { fields: Array.from({ length: 13 }, (_, i) => ({ label: `Q${i}` })) } }, ['body', 'capture', 'fields']],
      [{ to: '+919811122233', capture: {} }, ['body', 'capture']],
      [{ to: '+919811122233', metadata: 'nope' }, ['body', 'metadata']],
    ])('%j is refused at %j', async (body, loc) => {
      const res = await place(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: expect.any(Array) }));
      expect(res.body.error.details.errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
    });

    it('needs calls:write', async () => {
      const { key } = await ws.addKey(['messages:send']);
      const res = await place({ to: '+919811122233' }, key);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(envelope('permission_denied', expect.any(String) as never, { reason: 'missing_scope', required_scope: 'calls:write' }));
    });
  });

  it('answers 201 ringing with the create shape, then GET shows the call as it was handled', async () => {
    await script('+919811100010', FAST);
    const created = await place({ to: '9811100010', agent_id: ws.agentId, purpose: 'a quick check', details: { Name: 'Asha' }, metadata: { order: 'A-1' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      call_id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
      status: 'ringing',
      direction: 'outbound',
      to: '+919811100010',
      from_number: ws.phoneNumber,
      agent_id: ws.agentId,
      duration_seconds: null,
      outcome: null,
      summary: null,
      recording_uri: null,
      started_at: null,
      ended_at: null,
      capture: null,
      result: { state: 'pending', disposition: null, goal_met: null, success: null, summary: null, sentiment: null, next_step: null, next_step_reason: null, fields: {}, captured: 0, expected: 0, missing_required: [], read_at: null },
    });
    const done = await until(created.body.call_id, (b) => b.result.state === 'ready');
    expect(done).toMatchObject({ status: 'completed', direction: 'outbound', to: '+919811100010', from_number: ws.phoneNumber.slice(1), agent_id: ws.agentId, outcome: 'agent_hangup', recording_uri: null, capture: null });
    expect(done.started_at).toMatch(TIMESTAMP);
    expect(done.ended_at).toMatch(TIMESTAMP);
    expect(done.result.read_at).toMatch(TIMESTAMP);
    expect(done.summary).toEqual(done.result.summary);
    expect(done.result).toMatchObject({ fields: {}, captured: 0, expected: 0 });
  });

  it('echoes agent_id null when none was sent, and GET names the agent that handled it', async () => {
    await script('+919811100011', FAST);
    const created = await place({ to: '+919811100011' });
    expect(created.body.agent_id).toBeNull();
    expect((await get(created.body.call_id)).body.agent_id).toBe(ws.agentId);
  });

  it('gives a recording_uri only when recording is on for the number', async () => {
    const w = await createTestWorkspace(api.db);
    await collections(api.db).phoneNumbers.updateMany({ tenant_id: w.workspaceId }, { $set: { recording: true } });
    await script('+919811100012', FAST, w);
    const created = await place({ to: '+919811100012' }, w.key);
    const done = await until(created.body.call_id, (b) => b.ended_at !== null, w.key);
    expect(done.recording_uri).toMatch(new RegExp(`^storage://recordings/${w.workspaceId}/${created.body.call_id}\\.ogg$`));
  });

  it('404 Call not found. for an unknown id and for another workspace’s call, on GET and hangup', async () => {
    await script('+919811100013', { answer: false, ring_seconds: 300 });
    const created = await place({ to: '+919811100013' });
    const other = await createTestWorkspace(api.db);
    for (const res of [await get('call_000000000000000000000000'), await get(created.body.call_id, other.key), await hangup(created.body.call_id, other.key), await hangup('call_nope')]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelope('not_found', 'Call not found.', {}));
    }
    expect((await hangup(created.body.call_id)).body).toEqual({ call_id: created.body.call_id, ended: true });
  });

  it('hang-up while ringing ends the call (agent_hangup, duration 0); repeating it, or on a finished call, answers false', async () => {
    await script('+919811100014', { answer: false, ring_seconds: 300 });
    const created = await place({ to: '+919811100014', ring_seconds: 90 });
    expect((await hangup(created.body.call_id)).body).toEqual({ call_id: created.body.call_id, ended: true });
    const done = await until(created.body.call_id, (b) => b.result.state === 'ready');
    expect(done).toMatchObject({ status: 'completed', outcome: 'agent_hangup', duration_seconds: 0, started_at: null });
    expect(done.result).toMatchObject({ disposition: 'unanswered' });
    expect((await hangup(created.body.call_id)).body).toEqual({ call_id: created.body.call_id, ended: false });
  });

  it('a call the network will not place is 500 originate_failed, and reads back failed with originate_error', async () => {
    await script('+919811100015', { originate_error: true });
    const res = await place({ to: '+919811100015' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual(envelope('internal', 'The call could not be placed on the network.', { reason: 'originate_failed', call_id: expect.stringMatching(/^call_/) }));
    const failed = await until(res.body.error.details.call_id, (b) => b.result.state === 'ready');
    expect(failed).toMatchObject({ status: 'failed', outcome: 'originate_error', duration_seconds: 0 });
  });

  it('replays the first response for the same Idempotency-Key and body, placing one call', async () => {
    await script('+919811100016', FAST);
    const body = { to: '+919811100016' };
    const first = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).set('Idempotency-Key', 'call-once-1').send(body);
    const again = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).set('Idempotency-Key', 'call-once-1').send(body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.call_id).toBe(first.body.call_id);
    expect(await collections(api.db).workspaces.db.collection('calls').countDocuments({ tenant_id: ws.workspaceId, to: '+919811100016' })).toBe(1);
  });

  it('emits call.started, call.ended and call.outcome once each, with the API call’s metadata on call.outcome', async () => {
    await script('+919811100017', { ...FAST, answers: { rating: 'I would say seven.' } });
    const created = await place({
      to: '+919811100017',
      capture: { goal: 'Rate us', fields: [{ label: 'Rating', type: 'rating', required: true }, { label: 'Happy', type: 'yes_no' }] },
      metadata: { order: 'A-17' },
    });
    const done = await until(created.body.call_id, (b) => b.result.state === 'ready');
    expect(done.result).toMatchObject({ disposition: 'partial', captured: 1, expected: 2, missing_required: ['rating'], fields: { happy: true } });
    // `call.ended` is stored with `call.outcome`, after the result (src/calls/endCall.ts).
    const [started, ended, outcome] = [await events(done.call_id, 'call.started'), await eventsOnceThere(done.call_id, 'call.ended'), await eventsOnceThere(done.call_id, 'call.outcome')];
    expect([started.length, ended.length, outcome.length]).toEqual([1, 1, 1]);
    expect(ended[0]!.data).toMatchObject({ call_id: done.call_id, direction: 'outbound', status: 'completed', outcome: 'agent_hangup', to: '+919811100017' });
    expect(outcome[0]!.data).toEqual({
      call_id: done.call_id,
      direction: 'outbound',
      to: '+919811100017',
      deployment_id: expect.stringMatching(/^dep_/),
      disposition: 'partial',
      goal_met: expect.any(String),
      summary: expect.any(String),
      sentiment: expect.any(String),
      next_step: expect.any(String),
      ...(outcome[0]!.data.next_step_reason ? { next_step_reason: expect.any(String) } : {}),
      fields: { happy: true },
      captured: 1,
      expected: 2,
      missing_required: ['rating'],
      metadata: { order: 'A-17' },
      event_id: outcome[0]!._id,
    });
  });

  it('leaves metadata off call.outcome for campaign calls (reserved keys), carrying campaign_id instead', async () => {
    await script('+919811100018', FAST);
    const created = await place({ to: '+919811100018', metadata: { campaign_id: 'cmp_1', campaign_name: 'Spring' } });
    const done = await until(created.body.call_id, (b) => b.result.state === 'ready');
    const [outcome] = await eventsOnceThere(done.call_id, 'call.outcome');
    expect(outcome!.data.metadata).toBeUndefined();
    expect(outcome!.data.campaign_id).toBe('cmp_1');
    expect(outcome!.data.missing_required).toBeUndefined();
  });

  it('a console re-read reads again: result ready and a second call.outcome; a live call cannot be re-read', async () => {
    await script('+919811100019', FAST);
    const created = await place({ to: '+919811100019' });
    const live = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/calls/${created.body.call_id}/reread`).set(CONSOLE_AUTH);
    expect(live.status === 409 || live.status === 202).toBe(true);
    const done = await until(created.body.call_id, (b) => b.result.state === 'ready');
    const reread = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/calls/${done.call_id}/reread`).set(CONSOLE_AUTH);
    expect(reread.status).toBe(202);
    const deadline = Date.now() + 60_000;
    while ((await events(done.call_id, 'call.outcome')).length < 2) {
      if (Date.now() > deadline) throw new Error('no second call.outcome');
      await new Promise((r) => setTimeout(r, 150));
    }
    expect((await get(done.call_id)).body.result.state).toBe('ready');
  });

  it('refuses to re-read a call still ringing (409 call_live)', async () => {
    await script('+919811100020', { answer: false, ring_seconds: 300 });
    const created = await place({ to: '+919811100020' });
    const res = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/calls/${created.body.call_id}/reread`).set(CONSOLE_AUTH);
    expect(res.status).toBe(409);
    expect(res.body).toEqual(envelope('conflict', /still live/, { reason: 'call_live' }));
    await hangup(created.body.call_id);
  });

  it('reads inbound calls too, and GET /calls serves them', async () => {
    await script('+919811100021', FAST);
    const res = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/calls/inbound`).set(CONSOLE_AUTH).send({ from: '+919811100021' });
    expect(res.status).toBe(201);
    const done = await until(res.body.call_id, (b) => b.result.state === 'ready');
    expect(done).toMatchObject({ direction: 'inbound', to: '+919811100021', from_number: ws.phoneNumber.slice(1), status: 'completed' });
    expect((await eventsOnceThere(done.call_id, 'call.outcome')).length).toBe(1);
  });

  it('puts a finished call’s transcript in the conversations (channel voice)', async () => {
    await script('+919811100022', FAST);
    const created = await place({ to: '+919811100022', details: { Name: 'Ravi' } });
    const done = await until(created.body.call_id, (b) => b.result.state === 'ready');
    const list = await request(api.server).get('/api/v1/conversations?limit=100').set(bearer(ws.key));
    expect(list.status).toBe(200);
    const conversation = list.body.items.find((c: { channel: string; customer: { phone?: string } }) => c.channel === 'voice' && c.customer.phone === '+919811100022');
    expect(conversation).toMatchObject({ agent_id: ws.agentId, status: 'open', customer: { phone: '+919811100022', name: 'Ravi' } });
    const messages = await request(api.server).get(`/api/v1/conversations/${conversation.conversation_id}/messages`).set(bearer(ws.key));
    expect(messages.body.items.length).toBe(conversation.message_count);
    expect(messages.body.items[0]).toMatchObject({ role: 'model' });
    expect(messages.body.items.some((m: { role: string }) => m.role === 'user')).toBe(true);
    expect(done.status).toBe('completed');
  });
});
