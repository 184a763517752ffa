import request from 'supertest';
import { findCampaign } from '../../../src/campaigns/campaign';
import { callCollections, newCallDoc } from '../../../src/calls/callStore';
import type { CallOutcome, CallStatus } from '../../../src/calls/types';
import { collections } from '../../../src/db/collections';
import { newId } from '../../../src/domain/ids';
import { duesCollections } from '../../../src/dues/store';
import { useTestApi } from '../../support/app';
import { insertContacts } from '../../support/campaigns';
import { CONSOLE_AUTH } from '../../support/calls';
import { envelope } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The console's create routes (a WhatsApp campaign, a call campaign, a dues subscriber: the
 * public use cases, the public refusals) and its recent-calls list (filters, pages).
 */
describe('console create flows and recent calls', () => {
  const { api, ws } = useTestApi();
  const at = (path: string) => `/console/v1/workspaces/${ws.workspaceId}${path}`;
  const post = (path: string, body: unknown) => request(api.server).post(at(path)).set(CONSOLE_AUTH).send(body as object);
  const get = (path: string, query: Record<string, string> = {}) => request(api.server).get(at(path)).query(query).set(CONSOLE_AUTH);

  const whatsapp = (extra: Record<string, unknown> = {}) => ({
    name: 'Spring sale',
    audience: { kind: 'contact_ids', contact_ids: [] },
    template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] },
    ...extra,
  });

  describe('campaigns', () => {
    it('creates a WhatsApp draft from contact ids, recorded as the console’s, that the console then reads', async () => {
      const people = await insertContacts(api.db, ws.workspaceId, 3);
      const res = await post('/campaigns', whatsapp({ audience: { kind: 'contact_ids', contact_ids: people.map((p) => p._id) }, schedule: { throttle_per_minute: 30, timezone: 'Asia/Kolkata' } }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ campaign_id: expect.stringMatching(/^cmp_[0-9a-f]{24}$/), name: 'Spring sale', channel: 'whatsapp', type: 'whatsapp_broadcast', status: 'draft', version: 1, recipients: 0 });
      const stored = await findCampaign(api.db, ws.workspaceId, res.body.campaign_id);
      expect(stored!.created_by).toEqual({ kind: 'console', id: 'console' });
      const shown = await get(`/campaigns/${res.body.campaign_id}`);
      expect(shown.body).toMatchObject({
        audience: { kind: 'contact_ids', contact_id_count: 3 },
        template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] },
        schedule: { throttle_per_minute: 30, timezone: 'Asia/Kolkata' },
      });
      const evaluated = await post(`/campaigns/${res.body.campaign_id}/evaluate`, {});
      expect(evaluated.status).toBe(200);
      expect(evaluated.body.eligible).toBe(3);
    });

    it('creates a WhatsApp draft for a segment (tags normalised)', async () => {
      const res = await post('/campaigns', whatsapp({ audience: { kind: 'segment', tags: ['VIP', 'Mumbai'] } }));
      expect(res.status).toBe(201);
      const shown = await get(`/campaigns/${res.body.campaign_id}`);
      expect(shown.body.audience).toEqual({ kind: 'segment', tags: ['vip', 'mumbai'], contact_id_count: 0 });
    });

    it('creates a call campaign: purpose, script, capture with keys filled in, calling window and call-backs', async () => {
      const res = await post('/campaigns', {
        name: 'Delivery check',
        channel: 'voice',
        agent_id: ws.agentId,
        audience: { kind: 'segment', tags: ['orders'] },
        purpose: 'Confirm {{name}}’s delivery address',
        script: 'Greet {{name}}, confirm the address, ask for a slot.',
        capture: { goal: 'Confirm the delivery', fields: [{ label: 'Address correct?', type: 'yes_no', required: true }, { label: 'Slot', type: 'choice', options: ['Morning', 'Evening'] }] },
        call_back_incomplete: true,
        schedule: { send_window_start_hour: 11, send_window_end_hour: 17, recipient_time_zone: true },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ channel: 'voice', type: 'voice_batch', status: 'draft', calls: { dialled: 0 } });
      expect(res.body.capture.fields.map((f: { key: string }) => f.key)).toEqual(['address_correct', 'slot']);
      const shown = await get(`/campaigns/${res.body.campaign_id}`);
      expect(shown.body.schedule).toMatchObject({ send_window_start_hour: 11, send_window_end_hour: 17, recipient_time_zone: true });
    });

    it('refuses as the public API does: reason and field, or the validation failure at its loc', async () => {
      const cases: [unknown, number, unknown][] = [
        [whatsapp({ template: null }), 400, envelope('invalid_argument', 'A WhatsApp campaign needs a template.', { reason: 'template_not_found', field: 'template' })],
        [{ ...whatsapp({ template: null }), channel: 'voice' }, 400, envelope('invalid_argument', 'A voice campaign needs an agent_id.', { reason: 'invalid_argument', field: 'agent_id' })],
        [whatsapp({ script: 'Hello' }), 400, envelope('invalid_argument', 'script applies to voice campaigns only.', { reason: 'invalid_argument', field: 'script' })],
        [
          whatsapp({ template: { name: 'order_update', variables: ['{{contact.name}}', '{{contact.city}}'] } }),
          400,
          envelope('invalid_argument', 'No contact can fill {{contact.city}}; use {{contact.name}}, {{contact.phone}}, {{contact.email}}.', {
            reason: 'unknown_variable',
            field: 'contact.city',
            loc: ['body', 'template', 'variables', 1],
          }),
        ],
        [
          whatsapp({ name: '' }),
          400,
          envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'name'], msg: 'Too small: expected string to have >=1 characters', type: 'too_small' }] }),
        ],
        [
          whatsapp({ audience: { kind: 'segment', tags: [] } }),
          400,
          envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'audience', 'tags'], msg: 'A segment needs at least one tag.', type: 'custom' }] }),
        ],
      ];
      for (const [body, status, answer] of cases) {
        const res = await post('/campaigns', body);
        expect({ body, status: res.status, answer: res.body }).toEqual({ body, status, answer });
      }
      const missing = await request(api.server).post('/console/v1/workspaces/ws_missing/campaigns').set(CONSOLE_AUTH).send(whatsapp());
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(envelope('not_found', 'Workspace not found.'));
    });
  });

  describe('dues subscribers', () => {
    const subscriber = (extra: Record<string, unknown> = {}) => ({ name: 'Asha Rao', phone: '+919876500123', amount: 1200, plan_name: 'Gym', start_date: '2031-03-05', ...extra });

    it('adds a subscriber with its next two dues raised; the same phone again is 409 duplicate_recipient', async () => {
      const res = await post('/apps/dues/subscribers', subscriber());
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ subscriber_id: expect.stringMatching(/^sub_/), name: 'Asha Rao', phone: '+919876500123', plan_name: 'Gym', amount: 1200, status: 'active', next_due_date: '2031-03-05', outstanding_total: 2400 });
      const dues = await duesCollections(api.db).dues.find({ subscriber_id: res.body.subscriber_id }).toArray();
      expect(dues.map((d) => d.due_date).sort()).toEqual(['2031-03-05', '2031-04-05']);

      const again = await post('/apps/dues/subscribers', subscriber({ name: 'Someone else' }));
      expect(again.status).toBe(409);
      expect(again.body).toEqual(envelope('conflict', 'A subscriber with this phone number already exists.', { reason: 'duplicate_recipient', subscriber_id: res.body.subscriber_id }));
    });

    it('refuses an unusable phone (invalid_destination), custom_days without cycle_days, and a workspace without the app', async () => {
      const phone = await post('/apps/dues/subscribers', subscriber({ phone: '+00 12345' }));
      expect(phone.status).toBe(400);
      expect(phone.body).toEqual(
        envelope('invalid_argument', "That phone number isn't usable: give it with its country code (+…), or as a number of the workspace's country (IN).", { reason: 'invalid_destination' }),
      );
      const cycle = await post('/apps/dues/subscribers', subscriber({ phone: '+919876500124', cycle_unit: 'custom_days' }));
      expect(cycle.status).toBe(400);
      expect(cycle.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'cycle_days'], msg: 'cycle_days is required for custom_days.', type: 'custom' }] }));

      const other = await createTestWorkspace(api.db);
      await collections(api.db).workspaces.updateOne({ _id: other.workspaceId }, { $set: { installed_apps: [] } });
      const notInstalled = await request(api.server).post(`/console/v1/workspaces/${other.workspaceId}/apps/dues/subscribers`).set(CONSOLE_AUTH).send(subscriber());
      expect(notInstalled.status).toBe(412);
      expect(notInstalled.body).toEqual(
        envelope('failed_precondition', 'The dues app is not installed in this workspace; install it in the console.', { reason: 'not_found', docs: expect.any(String) }),
      );
    });
  });

  describe('recent calls', () => {
    /** Calls written straight into the read model, oldest first, a millisecond apart (ids are time-ordered). */
    async function insertCalls(tenantId: string, specs: { to: string; status: CallStatus; outcome: CallOutcome | null; campaign?: string }[]): Promise<string[]> {
      const start = Date.now() - 60_000;
      const docs = specs.map((s, i) => {
        const created = new Date(start + i);
        return {
          ...newCallDoc({
            _id: newId('call', created),
            tenant_id: tenantId,
            direction: 'outbound',
            status: s.status,
            to: s.to,
            from_number: '918000000000',
            agent_id: 'bot_test',
            requested_agent_id: null,
            deployment_id: 'dep_test',
            ring_seconds: 30,
            max_call_seconds: 600,
            recording: false,
            created_at: created,
            metadata: s.campaign ? { campaign_id: s.campaign, campaign_name: 'Delivery check' } : {},
          }),
          outcome: s.outcome,
        };
      });
      await callCollections(api.db).calls.insertMany(docs);
      return docs.map((d) => d._id);
    }

    it('lists the newest first a page at a time, narrowed by status, outcome, number and campaign together', async () => {
      const list = await createTestWorkspace(api.db);
      const campaign = `cmp_${'a'.repeat(24)}`;
      const ids = await insertCalls(list.workspaceId, [
        { to: '+919800000001', status: 'completed', outcome: 'caller_hangup' },
        { to: '+919800000002', status: 'failed', outcome: 'no_answer', campaign },
        { to: '+919800000001', status: 'completed', outcome: 'agent_hangup', campaign },
        { to: '+919800000003', status: 'in_progress', outcome: null },
        { to: '+919800000002', status: 'completed', outcome: 'caller_hangup', campaign },
      ]);
      // Another workspace's calls never show.
      await insertCalls(ws.workspaceId, [{ to: '+919800000001', status: 'completed', outcome: 'caller_hangup' }]);
      const calls = (query: Record<string, string> = {}) => request(api.server).get(`/console/v1/workspaces/${list.workspaceId}/calls`).query(query).set(CONSOLE_AUTH);
      const newestFirst = [...ids].reverse();

      const all = await calls();
      expect(all.status).toBe(200);
      expect(all.body.items.map((c: { call_id: string }) => c.call_id)).toEqual(newestFirst);
      expect(all.body.next_cursor).toBeNull();
      expect(all.body.items[0]).toMatchObject({ to: '+919800000002', status: 'completed', outcome: 'caller_hangup', campaign_id: campaign, campaign_name: 'Delivery check', created_at: expect.any(String) });
      expect(all.body.items[1]).toMatchObject({ campaign_id: null, campaign_name: null });

      // Pages of two: every call once, in order; the last page has no cursor.
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await calls({ limit: '2', ...(cursor ? { cursor } : {}) });
        expect(res.status).toBe(200);
        seen.push(...res.body.items.map((c: { call_id: string }) => c.call_id));
        cursor = res.body.next_cursor;
        pages += 1;
      } while (cursor);
      expect(seen).toEqual(newestFirst);
      expect(pages).toBe(3);

      const only = async (query: Record<string, string>) => (await calls(query)).body.items.map((c: { call_id: string }) => c.call_id);
      expect(await only({ status: 'completed' })).toEqual([ids[4], ids[2], ids[0]]);
      expect(await only({ outcome: 'caller_hangup' })).toEqual([ids[4], ids[0]]);
      // Separators and a missing + are forgiven, as when a number is pasted.
      expect(await only({ to: '91 98000 00002' })).toEqual([ids[4], ids[1]]);
      expect(await only({ campaign_id: campaign })).toEqual([ids[4], ids[2], ids[1]]);
      expect(await only({ campaign_id: campaign, status: 'completed', to: '+919800000001' })).toEqual([ids[2]]);
      expect(await only({ status: 'ringing' })).toEqual([]);
    });

    it('refuses a bad filter, and a cursor altered or made for other filters, at its loc', async () => {
      const bad = await get('/calls', { status: 'done', to: 'abc' });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [
            { loc: ['query', 'status'], msg: expect.stringMatching(/^Invalid option: expected one of "ringing"\|/), type: 'invalid_value' },
            { loc: ['query', 'to'], msg: 'the number needs digits', type: 'invalid_format' },
          ],
        }),
      );
      const limit = await get('/calls', { limit: '101' });
      expect(limit.status).toBe(400);
      expect(limit.body.error.details.errors[0].loc).toEqual(['query', 'limit']);

      await insertCalls(ws.workspaceId, [
        { to: '+919800000009', status: 'completed', outcome: 'idle' },
        { to: '+919800000009', status: 'completed', outcome: 'idle' },
      ]);
      const first = await get('/calls', { limit: '1', status: 'completed' });
      const cursor: string = first.body.next_cursor;
      expect(cursor).toEqual(expect.any(String));
      const cursorRefused = envelope('invalid_argument', 'Request validation failed.', {
        errors: [{ loc: ['query', 'cursor'], msg: 'Cursor is not valid; pass back a next_cursor unmodified.', type: 'cursor_invalid' }],
      });
      for (const query of [{ cursor, status: 'failed' }, { cursor: `${cursor}x`, status: 'completed' }]) {
        const res = await get('/calls', query);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(cursorRefused);
      }
    });
  });
});
