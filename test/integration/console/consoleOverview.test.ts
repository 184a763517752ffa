import request from 'supertest';
import { reserveDailyBudget } from '../../../src/calls/admission';
import { callCollections, newCallDoc, utcDay, type CallDoc } from '../../../src/calls/callStore';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { collections } from '../../../src/db/collections';
import { newId } from '../../../src/domain/ids';
import { localTime, zonedHourStart } from '../../../src/domain/sendWindow';
import { outboundMessagesCollection, type OutboundMessageDoc } from '../../../src/messaging/outboundMessages';
import { CONSOLE_AUTH } from '../../support/calls';
import { useTestApi } from '../../support/app';
import { injectInbound } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * Names, not internals (issue 35 §7) and the overview (§9): the console's calls say who they
 * were with, and GET …/overview reads the workspace's day from what is already kept.
 */
describe('console: calls by name, and the overview of the day', () => {
  const { api } = useTestApi();

  /** A call of the workspace, created `at`, as the call workflow leaves it. */
  const call = (ws: TestWorkspace, at: Date, over: Partial<CallDoc>): CallDoc => ({
    ...newCallDoc({
      _id: newId('call', at),
      tenant_id: ws.workspaceId,
      direction: 'outbound',
      status: 'completed',
      to: '+919811100001',
      from_number: '918000000000',
      agent_id: ws.agentId,
      requested_agent_id: null,
      deployment_id: 'dep_test',
      ring_seconds: 30,
      max_call_seconds: 600,
      recording: false,
      created_at: at,
      metadata: {},
    }),
    ...over,
  });

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

  it('GET …/overview counts the day in the workspace zone, names the newest calls, and lists what needs attention', async () => {
    const ws = await createTestWorkspace(api.db);
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    const now = new Date();
    const local = localTime(now, workspace.timezone);
    const since = zonedHourStart({ year: local.year, month: local.month, day: local.day }, 0, workspace.timezone);
    // Calls a few seconds into today (or just now, late in the day), and one of yesterday that is not counted.
    const at = (k: number) => new Date(Math.max(since.getTime() + 1_000 + k, now.getTime() - 30_000 + k));
    await callCollections(api.db).calls.insertMany([
      call(ws, new Date(since.getTime() - 60_000), { outcome: 'agent_hangup' }),
      call(ws, at(0), { outcome: 'agent_hangup', duration_seconds: 60, to: '+919811100011', detail_lines: [{ label: 'Name', value: 'Kavya' }], purpose: 'a delivery' }),
      call(ws, at(1), { outcome: 'no_answer', status: 'failed', to: '+919811100012' }),
      call(ws, at(2), { outcome: 'originate_error', status: 'failed', to: '+919811100013' }),
      call(ws, at(3), { outcome: 'caller_hangup', duration_seconds: 30, to: '+919811100014' }),
    ]);
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
      message(`wamid.${ws.workspaceId}.1`, 'read', at(0)),
      message(`wamid.${ws.workspaceId}.2`, 'delivered', at(1)),
      message(`wamid.${ws.workspaceId}.3`, 'failed', at(2)),
      message(`wamid.${ws.workspaceId}.4`, 'read', new Date(since.getTime() - 1_000)),
    ]);
    expect(await reserveDailyBudget(api.db, ws.workspaceId, 10, now, 'call_budget_probe')).toEqual({ ok: true, day: utcDay(now) });

    const res = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/overview`).set(CONSOLE_AUTH);
    expect(res.status).toBe(200);
    const o = res.body;
    expect(o.time_zone).toBe(workspace.timezone);
    expect(o.today.since).toBe(since.toISOString());
    expect(o.calls).toMatchObject({
      total: 4,
      capped: false,
      live: 0,
      by_status: { completed: 2, failed: 2 },
      by_outcome: { agent_hangup: 1, no_answer: 1, originate_error: 1, caller_hangup: 1 },
      connected_seconds: 90,
    });
    expect(o.calls.by_hour.reduce((a: number, b: number) => a + b, 0)).toBe(4);
    expect(o.calls.recent.map((c: { to: string; person_name: string | null; outcome: string }) => [c.to, c.person_name, c.outcome])).toEqual([
      ['+919811100014', null, 'caller_hangup'],
      ['+919811100013', null, 'originate_error'],
      ['+919811100012', null, 'no_answer'],
      ['+919811100011', 'Kavya', 'agent_hangup'],
    ]);
    expect(o.messages).toEqual({ total: 3, capped: false, cap: 2000, by_status: { sent: 0, delivered: 1, read: 1, failed: 1 } });
    expect(o.budget).toMatchObject({ utc_day: utcDay(now), calls_used: 1, calls_limit: 100, minutes_reserved: 10, minutes_limit: 600, campaign_calls_count: false });
    expect(o.campaigns).toEqual([]);
    const callId = o.calls.recent[1].call_id;
    expect(o.attention).toEqual([
      {
        code: 'calls_not_placed',
        severity: 'error',
        text: '1 call today could not be placed (a setup or network error on our side, not the person).',
        about: { kind: 'call', id: callId },
      },
      { code: 'messages_failed', severity: 'warning', text: '1 WhatsApp message sent today failed to deliver.', about: { kind: 'conversations', id: null } },
    ]);
  });
});
