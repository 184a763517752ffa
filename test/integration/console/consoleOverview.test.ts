import request from 'supertest';
import { callCollections, utcDay, type CallDoc } from '../../../src/calls/callStore';
import { tallyCallEnd } from '../../../src/calls/callTally';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { collections } from '../../../src/db/collections';
import { localTime, zonedHourStart } from '../../../src/domain/sendWindow';
import { outboundMessagesCollection, type OutboundMessageDoc } from '../../../src/messaging/outboundMessages';
import { CONSOLE_AUTH, callEndStored, pollCall, scriptCallee } from '../../support/calls';
import { bearer } from '../../support/http';
import { useTestApi } from '../../support/app';
import { insertCampaignDraft, insertContacts } from '../../support/campaigns';
import { injectInbound } from '../../support/messaging';
import { storedCall } from '../../support/storedRecords';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * Names, not internals (issue 35 §7) and the overview (§9): the console's calls say who they
 * were with, and GET …/overview reads the workspace's day from what is already kept.
 */
describe('console: calls by name, and the overview of the day', () => {
  const { api } = useTestApi({ worker: true });

  /** A call of the workspace, created `at`, as the call workflow leaves it. */
  const call = (ws: TestWorkspace, at: Date, over: Partial<CallDoc>): CallDoc => storedCall(ws, at, '+919811100001', { status: 'completed', ...over });

  it('a call leads with the person: the campaign recipient, a details name, the contact, else the WhatsApp name; a number nobody named stays a number', async () => {
    const ws = await createTestWorkspace(api.db);
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    await matchOrCreateContact(api.db, workspace, { name: 'Meera Nair', phone: '09811100002' }, new Date());
    await injectInbound(api, ws.workspaceId, { from: '+919811100003', text: 'Hello', name: 'Asha Verma' });
    const base = Date.now() - 60_000;
    const docs = [
      call(ws, new Date(base), { to: '+919811100001', metadata: { campaign_id: `cmp_${'a'.repeat(24)}`, campaign_name: 'Deliveries', person_name: 'Ravi Kumar' } }),
      call(ws, new Date(base + 1_000), { to: '+919811100005', detail_lines: [{ label: 'Name', value: 'Sunil Rao' }], purpose: 'your parcel' }),
      call(ws, new Date(base + 2_000), { to: '+919811100002', duration_seconds: 125 }),
      call(ws, new Date(base + 3_000), { to: '+919811100003' }),
      call(ws, new Date(base + 4_000), { to: '+919811100004' }),
    ];
    await callCollections(api.db).calls.insertMany(docs);

    const list = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/calls`).set(CONSOLE_AUTH);
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: { to: string; person_name: string | null; purpose: string | null }) => [c.to, c.person_name, c.purpose])).toEqual([
      ['+919811100004', null, null],
      ['+919811100003', 'Asha Verma', null],
      ['+919811100002', 'Meera Nair', null],
      ['+919811100005', 'Sunil Rao', 'your parcel'],
      ['+919811100001', 'Ravi Kumar', null],
    ]);

    // Found by a local-format number, the call says who it was with; so does the call itself.
    const found = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/find?q=${encodeURIComponent('098111 00002')}`).set(CONSOLE_AUTH);
    expect(found.body.items).toEqual([expect.objectContaining({ kind: 'call', id: docs[2]!._id, who: 'Meera Nair (+919811100002)' })]);
    const one = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/calls/${docs[2]!._id}`).set(CONSOLE_AUTH);
    expect(one.body).toMatchObject({ person_name: 'Meera Nair', purpose: null, duration_seconds: 125 });
  });

  it('GET …/overview counts the calls that ended today from their tally (a real call through the worker included, a retried end once), names the newest, and lists what needs attention', async () => {
    const ws = await createTestWorkspace(api.db);
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    const now = new Date();
    const local = localTime(now, workspace.timezone);
    const since = zonedHourStart({ year: local.year, month: local.month, day: local.day }, 0, workspace.timezone);

    // Ended today: three calls counted as finishCall counts them (one counted twice, as a retried step would), and one of yesterday.
    const seeded = [
      call(ws, new Date(now.getTime() - 5_000), { outcome: 'no_answer', status: 'failed', to: '+919811100012' }),
      call(ws, new Date(now.getTime() - 4_000), { outcome: 'originate_error', status: 'failed', to: '+919811100013' }),
      call(ws, new Date(now.getTime() - 3_000), { outcome: 'caller_hangup', duration_seconds: 30, to: '+919811100014' }),
    ];
    await callCollections(api.db).calls.insertMany(seeded);
    for (const c of [...seeded, seeded[0]!]) {
      await tallyCallEnd(api.db, c, { status: c.status, outcome: c.outcome, answered: c.duration_seconds !== null, durationSeconds: c.duration_seconds ?? 0, endedAt: c.created_at });
    }
    const yesterday = call(ws, new Date(since.getTime() - 60_000), { outcome: 'agent_hangup' });
    await callCollections(api.db).calls.insertOne(yesterday);
    await tallyCallEnd(api.db, yesterday, { status: 'completed', outcome: 'agent_hangup', answered: true, durationSeconds: 60, endedAt: yesterday.created_at });

    // A real call, placed through the API, ended by the simulated callee, counted by the worker's finishCall.
    await scriptCallee(api, ws, '+919811100011', { ring_seconds: 0, seconds_per_turn: 0.1 });
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '09811100011', details: { Name: 'Kavya' }, purpose: 'a delivery' });
    expect(placed.status).toBe(201);
    const ended = await pollCall(api, ws.key, placed.body.call_id, (c) => c.status === 'completed');
    // The day's tally and the live place's release follow the call's ending write.
    await callEndStored(api, placed.body.call_id);

    const message = (id: string, status: OutboundMessageDoc['status'], created: Date): OutboundMessageDoc => ({
      _id: id,
      tenant_id: ws.workspaceId,
      sender_id: 'snd_test',
      to: '+919811100011',
      conversation_id: 'con_test',
      transcript_message_id: `msg_${id}`,
      billed: null,
      status,
      status_at: created,
      created_at: created,
      kind: 'text',
      template: null,
      metadata: {},
      provider: 'simulator',
    });
    await outboundMessagesCollection(api.db).insertMany([
      message(`wamid.${ws.workspaceId}.1`, 'read', now),
      message(`wamid.${ws.workspaceId}.2`, 'delivered', now),
      message(`wamid.${ws.workspaceId}.3`, 'failed', now),
      message(`wamid.${ws.workspaceId}.4`, 'read', new Date(since.getTime() - 1_000)),
    ]);

    // A campaign launched to start tomorrow (scheduled: active) and a draft (not shown).
    const people = await insertContacts(api.db, ws.workspaceId, 2);
    const scheduled = await insertCampaignDraft(api.db, ws.workspaceId, {
      name: 'Renewals',
      contactIds: people.map((p) => p._id),
      schedule: { start_at: new Date(Date.now() + 86_400_000), throttle_per_minute: 60, timezone: 'UTC' },
    });
    expect((await request(api.server).post(`/api/v1/campaigns/${scheduled._id}/launch`).set(bearer(ws.key)).send({ expected_version: 1 })).status).toBe(200);
    await insertCampaignDraft(api.db, ws.workspaceId, { name: 'Still a draft', contactIds: people.map((p) => p._id) });

    const res = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/overview`).set(CONSOLE_AUTH);
    expect(res.status).toBe(200);
    const o = res.body;
    expect(o.time_zone).toBe(workspace.timezone);
    expect(o.today).toEqual({ date: `${local.year}-${String(local.month).padStart(2, '0')}-${String(local.day).padStart(2, '0')}`, since: since.toISOString() });
    expect(o.calls).toMatchObject({
      ended: 4,
      answered: 2,
      live: 0,
      by_status: { completed: 2, failed: 2 },
      by_outcome: [ended.outcome, 'no_answer', 'originate_error', 'caller_hangup'].reduce<Record<string, number>>((n, o: string) => ({ ...n, [o]: (n[o] ?? 0) + 1 }), {}),
      connected_seconds: 30 + ended.duration_seconds,
    });
    expect(o.calls.by_hour).toHaveLength(24);
    expect(o.calls.by_hour.reduce((a: number, b: number) => a + b, 0)).toBe(4);
    expect(o.calls.recent.map((c: { call_id: string; person_name: string | null; purpose: string | null }) => [c.call_id, c.person_name, c.purpose])).toEqual([
      [placed.body.call_id, 'Kavya', 'a delivery'],
      [seeded[2]!._id, null, null],
      [seeded[1]!._id, null, null],
      [seeded[0]!._id, null, null],
    ]);
    expect(o.messages).toEqual({ total: 3, capped: false, cap: 2000, by_status: { sent: 0, delivered: 1, read: 1, failed: 1 } });
    expect(o.budget).toMatchObject({ utc_day: utcDay(now), calls_used: 1, calls_limit: 100, minutes_limit: 600, campaign_calls_count: false });
    expect(o.campaigns).toEqual([{ campaign_id: scheduled._id, name: 'Renewals', channel: 'whatsapp', status: 'scheduled', recipients: 2, reached: 0, failed: 0 }]);
    expect(o.attention).toEqual([
      {
        code: 'calls_not_placed',
        severity: 'error',
        text: '1 call today could not be placed (a setup or network error on our side, not the person).',
        about: { kind: 'calls', id: null },
      },
      { code: 'messages_failed', severity: 'warning', text: '1 WhatsApp message sent today failed to deliver.', about: { kind: 'conversations', id: null } },
    ]);
  });
});
