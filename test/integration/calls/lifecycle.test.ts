import request from 'supertest';
import { startTestApi, useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';
import { pollCall, scriptCallee } from '../../support/calls';

describe('a call end to end on the real dev server', () => {
  const { api, ws } = useTestApi({ worker: true });

  const script = (destination: string, body: Record<string, unknown>) => scriptCallee(api, ws, destination, body);
  const until = (callId: string, done: (body: any) => boolean) => pollCall(api, ws.key, callId, done);

  it('rings, is answered, talks, ends and is read with every capture field answered', async () => {
    await script('+919811100001', { ring_seconds: 0.5, seconds_per_turn: 0.3 });
    const res = await request(api.server)
      .post('/api/v1/calls')
      .set(bearer(ws.key))
      .send({
        to: '+919811100001',
        purpose: 'confirming tomorrow’s delivery',
        capture: {
          goal: 'Confirm the delivery slot',
          fields: [
            { label: 'Is someone home?', type: 'yes_no', required: true },
            { label: 'Preferred slot', type: 'choice', options: ['Morning', 'Evening', 'morning'] },
            { label: 'Rating', type: 'rating' },
          ],
          success: { field: 'is_someone_home', equals: 'yes' },
        },
      });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'ringing', direction: 'outbound', to: '+919811100001', agent_id: null, started_at: null, ended_at: null });
    expect(res.body.from_number).toBe(ws.phoneNumber);
    expect(res.body.result.state).toBe('pending');
    expect(res.body.capture.fields[1]).toEqual({ key: 'preferred_slot', label: 'Preferred slot', type: 'choice', hint: null, options: ['Morning', 'Evening'], required: false, display: 'auto' });

    const done = await until(res.body.call_id, (b) => b.result.state !== 'pending');
    expect(done).toMatchObject({ status: 'completed', outcome: 'agent_hangup', agent_id: ws.agentId, from_number: ws.phoneNumber.slice(1) });
    expect(done.duration_seconds).toBeGreaterThan(0);
    expect(done.result).toMatchObject({
      state: 'ready',
      disposition: 'completed',
      success: true,
      fields: { is_someone_home: true, preferred_slot: 'Morning', rating: 4 },
      captured: 3,
      expected: 3,
      missing_required: [],
    });
  });
});

describe('when no worker places the call within 10 s', () => {
  it('answers 201 ringing anyway, the call left for a worker to place', async () => {
    const api = await startTestApi();
    try {
      const ws = await createTestWorkspace(api.db);
      const began = Date.now();
      const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '+919811100099' });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('ringing');
      expect(Date.now() - began).toBeGreaterThanOrEqual(9_000);
      const stored = await api.db.collection('calls').findOne({ _id: res.body.call_id });
      expect(stored).toMatchObject({ status: 'ringing', placed_at: null });
    } finally {
      await api.close();
    }
  });
});
