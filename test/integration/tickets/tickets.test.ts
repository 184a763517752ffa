import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { eventsCollection } from '../../../src/events/eventStore';
import { TICKET_STATUSES, canMove, type TicketStatus } from '../../../src/tickets/ticketRules';
import { ticketCollections } from '../../../src/tickets/ticketStore';
import { SIMULATE_TRIAGE_ERROR, SIMULATE_TRIAGE_TIMEOUT } from '../../../src/tickets/triage/simulatedTriage';
import { useTestApi, type TestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const REQUESTER_MESSAGE = 'Provide at least one requester detail (name, email, or phone).';

type TicketBody = { ticket_id: string; version: number; status: string; updated_at: string; [field: string]: unknown };

/**
 * A workspace and a pool of its tickets:write keys, switched every 100 requests so the
 * per-key limit of 120 a minute never decides a test.
 */
class Caller {
  private used = 0;
  private key: string;
  keyId: string;
  constructor(
    private readonly api: TestApi,
    readonly ws: TestWorkspace,
  ) {
    this.key = ws.key;
    this.keyId = ws.keyId;
  }

  async auth(): Promise<{ Authorization: string }> {
    if (++this.used > 100) {
      const fresh = await this.ws.addKey(['tickets:write', 'contacts:write']);
      this.key = fresh.key;
      this.keyId = fresh.keyId;
      this.used = 1;
    }
    return bearer(this.key);
  }

  /** Sends exactly these bytes. */
  async createRaw(raw: string, headers: Record<string, string> = {}) {
    return request(this.api.server)
      .post('/api/v1/tickets')
      .set(await this.auth())
      .set(headers)
      .set('Content-Type', 'application/json')
      .send(raw);
  }

  async create(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return this.createRaw(JSON.stringify(body), headers);
  }

  async get(id: string) {
    return request(this.api.server).get(`/api/v1/tickets/${id}`).set(await this.auth());
  }

  async patch(id: string, body: Record<string, unknown>) {
    return request(this.api.server).patch(`/api/v1/tickets/${id}`).set(await this.auth()).send(body);
  }

  /** A new ticket (a unique subject makes unique bytes) moved to `status` by allowed moves. */
  async ticketIn(status: TicketStatus, extra: Record<string, unknown> = {}): Promise<TicketBody> {
    const res = await this.create({ subject: `T ${Math.random()}`, description: 'Details', requester_name: 'Asha', ...extra });
    expect(res.status).toBe(201);
    if (status === 'new') return res.body;
    const moved = await this.patch(res.body.ticket_id, { expected_version: res.body.version, status });
    expect(moved.status).toBe(200);
    return moved.body;
  }
}

describe('tickets (POST, GET, PATCH /api/v1/tickets)', () => {
  const { api } = useTestApi();
  let caller: Caller;
  let admin: { Authorization: string };

  beforeAll(async () => {
    caller = new Caller(api, await createTestWorkspace(api.db));
    admin = bearer(api.config.CONSOLE_TOKEN!);
  });

  const consolePatch = (path: string, body: unknown) => request(api.server).patch(`/console/v1${path}`).set(admin).send(body as object);
  const consolePost = (path: string, body: unknown) => request(api.server).post(`/console/v1${path}`).set(admin).send(body as object);
  const consoleGet = (path: string) => request(api.server).get(`/console/v1${path}`).set(admin);
  const eventsOf = (tenantId: string, type: string, ticketId: string) =>
    eventsCollection(api.db).find({ tenant_id: tenantId, type, 'data.ticket_id': ticketId }).toArray();

  describe('create', () => {
    it('answers 201 with the full record: normalised tags plus api, requester keys all present, triage at version 2', async () => {
      const res = await caller.create({
        subject: 'Cannot log in',
        description: 'The password reset mail never arrives.',
        requester_email: 'asha@example.com',
        tags: [' VIP Customer ', 'vip customer', 'Login'],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        ticket_id: expect.stringMatching(/^tkt_[0-9a-f]{24}$/),
        public_ref: expect.stringMatching(/^TKT-[0-9A-F]{8}$/),
        subject: 'Cannot log in',
        status: 'new',
        priority: 'normal',
        category: null,
        tags: ['vip-customer', 'login', 'api'],
        requester: { name: null, email: 'asha@example.com', phone: null, external_id: null },
        source: { channel: 'api', thread_id: null, message_id: null },
        assignee_id: null,
        assignee_name: null,
        version: 2,
        message_count: 1,
        sla_due_at: expect.stringMatching(TIMESTAMP),
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      expect(res.body.public_ref).toBe(`TKT-${res.body.ticket_id.slice(4, 12).toUpperCase()}`);
    });

    it('makes the description the first message and attaches triage notes (seen in the console)', async () => {
      const res = await caller.create({ subject: 'Refund please', description: 'I was charged twice for my order.', requester_name: 'Ravi' });
      const { messages, versions } = ticketCollections(api.db);
      expect(await messages.find({ ticket_id: res.body.ticket_id }).toArray()).toEqual([
        expect.objectContaining({ seq: 1, kind: 'customer', author_name: 'Ravi', text: 'I was charged twice for my order.', delivery_state: null }),
      ]);
      const shown = await consoleGet(`/workspaces/${caller.ws.workspaceId}/tickets/${res.body.ticket_id}`);
      expect(shown.status).toBe(200);
      expect(shown.body.triage).toEqual({
        provider: 'simulated',
        suggested_category: 'billing',
        suggested_priority: 'high',
        notes: expect.stringContaining('category billing'),
        attached_at: expect.stringMatching(TIMESTAMP),
      });
      // Triage advises; it does not change the caller's fields.
      expect(shown.body).toMatchObject({ category: null, priority: 'normal', version: 2 });
      expect(shown.body.history.map((h: { version: number; actor: unknown }) => [h.version, h.actor])).toEqual([
        [1, { kind: 'api_key', key_id: caller.keyId }],
        [2, { kind: 'triage', provider: 'simulated' }],
      ]);
      expect(await versions.countDocuments({ ticket_id: res.body.ticket_id })).toBe(2);
    });

    it('links the requester to the workspace contact with that email or phone, creating none', async () => {
      const email = `linked.${Date.now()}@example.com`;
      const contact = await request(api.server).post('/api/v1/contacts').set(await caller.auth()).send({ email, phone: '+919812345678' });
      expect(contact.status).toBe(201);
      const byEmail = await caller.create({ subject: 'Linked', description: 'x', requester_email: email.toUpperCase() });
      const byPhone = await caller.create({ subject: 'Linked by phone', description: 'x', requester_phone: '98123 45678' });
      const stranger = await caller.create({ subject: 'Stranger', description: 'x', requester_email: `nobody.${Date.now()}@example.com` });
      const contactOf = async (id: string) => (await consoleGet(`/workspaces/${caller.ws.workspaceId}/tickets/${id}`)).body.contact_id;
      expect(await contactOf(byEmail.body.ticket_id)).toBe(contact.body.contact_id);
      expect(await contactOf(byPhone.body.ticket_id)).toBe(contact.body.contact_id);
      expect(await contactOf(stranger.body.ticket_id)).toBeNull();
      // The requester is returned as sent.
      expect(byPhone.body.requester.phone).toBe('98123 45678');
    });

    it('stays at version 1 when triage fails or takes too long', async () => {
      const failed = await caller.create({ subject: `Broken ${SIMULATE_TRIAGE_ERROR}`, description: 'x', requester_name: 'A' });
      expect(failed.status).toBe(201);
      expect(failed.body.version).toBe(1);
      const started = Date.now();
      const slow = await caller.create({ subject: 'Slow', description: `x ${SIMULATE_TRIAGE_TIMEOUT}`, requester_name: 'A' });
      expect(slow.status).toBe(201);
      expect(slow.body.version).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      const shown = await consoleGet(`/workspaces/${caller.ws.workspaceId}/tickets/${slow.body.ticket_id}`);
      expect(shown.body.triage).toBeNull();
    });

    it.each([
      ['urgent', 2],
      ['high', 8],
      ['normal', 24],
      ['low', 72],
    ])('sets sla_due_at %s hours after creation from priority %s', async (priority, hours) => {
      const res = await caller.create({ subject: `SLA ${priority}`, description: 'x', requester_phone: '+919876543210', priority });
      expect(res.status).toBe(201);
      expect(res.body.priority).toBe(priority);
      expect(Date.parse(res.body.sla_due_at) - Date.parse(res.body.created_at)).toBe(hours * 3_600_000);
    });

    it('does not move sla_due_at when priority changes later', async () => {
      const res = await caller.create({ subject: 'SLA stays', description: 'x', requester_name: 'A', priority: 'low' });
      const changed = await caller.patch(res.body.ticket_id, { expected_version: res.body.version, priority: 'urgent' });
      expect(changed.body.priority).toBe('urgent');
      expect(changed.body.sla_due_at).toBe(res.body.sla_due_at);
    });

    it('refuses a body with no requester detail before writing: exact message, details {}', async () => {
      const before = await ticketCollections(api.db).tickets.countDocuments({ tenant_id: caller.ws.workspaceId });
      for (const body of [
        { subject: 'No one', description: 'x' },
        { subject: 'No one', description: 'x', requester_name: null, requester_email: '  ', requester_phone: '' },
        { subject: 'No one', description: 'x', requester_external_id: 'crm-1' },
      ]) {
        const res = await caller.create(body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(envelope('invalid_argument', REQUESTER_MESSAGE, {}));
      }
      expect(await ticketCollections(api.db).tickets.countDocuments({ tenant_id: caller.ws.workspaceId })).toBe(before);
    });

    it('accepts each requester detail on its own, and keeps external_id when sent', async () => {
      for (const [field, key, value] of [
        ['requester_name', 'name', 'Asha'],
        ['requester_email', 'email', 'asha@example.com'],
        ['requester_phone', 'phone', '+91 98765 43210'],
      ]) {
        const res = await caller.create({ subject: `Only ${field}`, description: 'x', [field!]: value, requester_external_id: 'crm-9' });
        expect(res.status).toBe(201);
        expect(res.body.requester).toEqual({ name: null, email: null, phone: null, [key!]: value, external_id: 'crm-9' });
      }
    });

    it.each([
      ['garbage', 'garbage'],
      ['an extension', '+91 98 7654 3210 ext 5'],
      ['a leading NUL byte', '\u0000+919876543210'],
    ])('refuses a requester_phone the contacts refuse (%s): 400 phone_invalid at the field, nothing written', async (_, phone) => {
      const before = await ticketCollections(api.db).tickets.countDocuments({ tenant_id: caller.ws.workspaceId });
      const res = await caller.create({ subject: 'Bad phone', description: 'x', requester_name: 'A', requester_phone: phone });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [
            {
              loc: ['body', 'requester_phone'],
              msg: "That phone number isn't usable: give it with its country code (+…), or as a number of the workspace's country (IN).",
              type: 'phone_invalid',
            },
          ],
        }),
      );
      const contact = await request(api.server).post('/api/v1/contacts').set(await caller.auth()).send({ phone });
      expect(contact.status).toBe(400);
      expect(contact.body.error.details.errors).toEqual([expect.objectContaining({ loc: ['body', 'phone'], type: 'phone_invalid' })]);
      expect(await ticketCollections(api.db).tickets.countDocuments({ tenant_id: caller.ws.workspaceId })).toBe(before);
    });

    const valid = { subject: 'S', description: 'D', requester_name: 'N' };
    it.each([
      ['subject missing', { ...valid, subject: undefined }, ['body', 'subject']],
      ['subject empty', { ...valid, subject: '' }, ['body', 'subject']],
      ['subject over 240', { ...valid, subject: 's'.repeat(241) }, ['body', 'subject']],
      ['description missing', { ...valid, description: undefined }, ['body', 'description']],
      ['description empty', { ...valid, description: '' }, ['body', 'description']],
      ['description over 8,000', { ...valid, description: 'd'.repeat(8_001) }, ['body', 'description']],
      ['priority unknown', { ...valid, priority: 'critical' }, ['body', 'priority']],
      ['priority null', { ...valid, priority: null }, ['body', 'priority']],
      ['requester_name over 120', { ...valid, requester_name: 'n'.repeat(121) }, ['body', 'requester_name']],
      ['requester_email over 200', { ...valid, requester_email: `${'e'.repeat(189)}@example.com` }, ['body', 'requester_email']],
      ['requester_phone over 32', { ...valid, requester_phone: '1'.repeat(33) }, ['body', 'requester_phone']],
      ['requester_email not an address', { ...valid, requester_email: 'nope' }, ['body', 'requester_email']],
      ['more than 10 tags', { ...valid, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, ['body', 'tags']],
      ['a tag that is not a string', { ...valid, tags: [1] }, ['body', 'tags', 0]],
    ])('refuses %s with the validation envelope', async (_, body, loc) => {
      const res = await caller.create(body as Record<string, unknown>);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', { errors: [expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) })] }),
      );
    });

    it('accepts the limits exactly: subject 240, description 8,000, requester fields at their maximum, 10 tags', async () => {
      const res = await caller.create({
        subject: 's'.repeat(240),
        description: 'd'.repeat(8_000),
        requester_name: 'n'.repeat(120),
        requester_email: `${'e'.repeat(188)}@example.com`,
        requester_phone: `+91${' '.repeat(18)}98765 43210`,
        tags: Array.from({ length: 10 }, (_, i) => `t${i}`),
      });
      expect(res.status).toBe(201);
      expect(res.body.tags).toHaveLength(11);
    });

    it('stores ticket.created once, with the ticket id, public ref and no null keys', async () => {
      const raw = JSON.stringify({ subject: 'Event check', description: 'x', requester_name: 'A', tags: ['Blue'] });
      const res = await caller.createRaw(raw);
      await caller.createRaw(raw);
      const events = await eventsOf(caller.ws.workspaceId, 'ticket.created', res.body.ticket_id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        _id: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
        dedupe_key: `ticket.created:${res.body.ticket_id}`,
      });
      expect(events[0]!.data).toEqual({
        ticket_id: res.body.ticket_id,
        public_ref: res.body.public_ref,
        subject: 'Event check',
        status: 'new',
        priority: 'normal',
        channel: 'api',
        tags: ['blue', 'api'],
        sla_due_at: new Date(Date.parse(res.body.sla_due_at)).toISOString(),
      });
    });
  });

  describe('deduplication on the raw body', () => {
    it('returns the same ticket (201) for byte-identical bodies, with or without a key, even once closed', async () => {
      const raw = JSON.stringify({ subject: `Dedupe ${Date.now()}`, description: 'same bytes', requester_name: 'A' });
      const first = await caller.createRaw(raw);
      const second = await caller.createRaw(raw);
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      const keyed = await caller.createRaw(raw, { 'Idempotency-Key': `k-${Date.now()}` });
      expect(keyed.status).toBe(201);
      expect(keyed.body.ticket_id).toBe(first.body.ticket_id);

      const closed = await caller.patch(first.body.ticket_id, { expected_version: first.body.version, status: 'closed' });
      expect(closed.status).toBe(200);
      const again = await caller.createRaw(raw);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(closed.body);
      expect(again.body.status).toBe('closed');
      expect(await ticketCollections(api.db).tickets.countDocuments({ _id: first.body.ticket_id })).toBe(1);
    });

    it('makes a new ticket when one byte changes', async () => {
      const raw = JSON.stringify({ subject: `One byte ${Date.now()}`, description: 'x', requester_name: 'A' });
      const a = await caller.createRaw(raw);
      const b = await caller.createRaw(`${raw} `);
      const c = await caller.createRaw(raw.replace('"x"', '"y"'));
      expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
      expect(new Set([a.body.ticket_id, b.body.ticket_id, c.body.ticket_id]).size).toBe(3);
      expect(new Set([a.body.public_ref, b.body.public_ref, c.body.public_ref]).size).toBe(3);
    });

    it('gives two workspaces sending the same bytes tickets of their own', async () => {
      const other = new Caller(api, await createTestWorkspace(api.db));
      const raw = JSON.stringify({ subject: `Shared bytes ${Date.now()}`, description: 'x', requester_name: 'A' });
      const mine = await caller.createRaw(raw);
      const theirs = await other.createRaw(raw);
      expect(theirs.status).toBe(201);
      expect(theirs.body.ticket_id).not.toBe(mine.body.ticket_id);
      expect((await other.get(mine.body.ticket_id)).status).toBe(404);
    });

    it('makes one ticket from ten identical bodies sent at once', async () => {
      const raw = JSON.stringify({ subject: `Burst ${Date.now()}`, description: 'x', requester_name: 'A' });
      const all = await Promise.all(Array.from({ length: 10 }, () => caller.createRaw(raw)));
      expect(all.map((r) => r.status)).toEqual(Array(10).fill(201));
      expect(new Set(all.map((r) => r.body.ticket_id)).size).toBe(1);
      const id = all[0]!.body.ticket_id;
      expect(await ticketCollections(api.db).messages.countDocuments({ ticket_id: id })).toBe(1);
      expect(await eventsOf(caller.ws.workspaceId, 'ticket.created', id)).toHaveLength(1);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body, and refuses the key with another body', async () => {
      const key = `idem-${Date.now()}`;
      const raw = JSON.stringify({ subject: `Idem ${Date.now()}`, description: 'x', requester_name: 'A' });
      const first = await caller.createRaw(raw, { 'Idempotency-Key': key });
      expect(first.status).toBe(201);
      const changed = await caller.patch(first.body.ticket_id, { expected_version: first.body.version, status: 'open' });
      expect(changed.status).toBe(200);

      const replay = await caller.createRaw(raw, { 'Idempotency-Key': key });
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(first.text);

      const unkeyed = await caller.createRaw(raw);
      expect(unkeyed.body).toEqual(changed.body);

      const reuse = await caller.createRaw(raw.replace('"x"', '"z"'), { 'Idempotency-Key': key });
      expect(reuse.status).toBe(409);
      expect(reuse.body).toEqual(envelope('conflict', 'This Idempotency-Key was used with a different request body.', { reason: 'idempotency_key_reuse' }));
    });

    it('releases the key when the request is refused, so a corrected retry with it runs', async () => {
      const key = `idem-refused-${Date.now()}`;
      const refused = await caller.create({ subject: 'x', description: 'x' }, { 'Idempotency-Key': key });
      expect(refused.status).toBe(400);
      const retried = await caller.create({ subject: 'x', description: 'x' }, { 'Idempotency-Key': key });
      expect(retried.status).toBe(400);
      expect(retried.body.error.message).toBe(REQUESTER_MESSAGE);
    });
  });

  describe('auto-assignment from the workspace ticket settings', () => {
    it('assigns round robin, or always the first, and not at all when switched off', async () => {
      const c = new Caller(api, await createTestWorkspace(api.db));
      const ws = c.ws.workspaceId;
      expect((await consoleGet(`/workspaces/${ws}/ticket-settings`)).body).toEqual({ auto_assign: false, assignment: 'round_robin', assignees: [] });
      const none = await c.create({ subject: 'Unassigned', description: 'x', requester_name: 'A' });
      expect(none.body).toMatchObject({ assignee_id: null, assignee_name: null });

      const set = await consolePatch(`/workspaces/${ws}/ticket-settings`, {
        auto_assign: true,
        assignees: [
          { id: 'u_asha', name: 'Asha' },
          { id: 'u_ravi', name: 'Ravi' },
        ],
      });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({
        auto_assign: true,
        assignment: 'round_robin',
        assignees: [
          { assignee_id: 'u_asha', name: 'Asha' },
          { assignee_id: 'u_ravi', name: 'Ravi' },
        ],
      });
      expect((await consoleGet(`/workspaces/${ws}/ticket-assignees`)).body).toEqual({ items: set.body.assignees });

      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await c.create({ subject: `RR ${i}`, description: 'x', requester_name: 'A' });
        names.push(`${res.body.assignee_id}:${res.body.assignee_name}`);
      }
      expect(names).toEqual(['u_asha:Asha', 'u_ravi:Ravi', 'u_asha:Asha']);

      await consolePatch(`/workspaces/${ws}/ticket-settings`, { assignment: 'first' });
      for (let i = 0; i < 2; i++) {
        const res = await c.create({ subject: `First ${i}`, description: 'x', requester_name: 'A' });
        expect(res.body.assignee_id).toBe('u_asha');
      }
      await consolePatch(`/workspaces/${ws}/ticket-settings`, { auto_assign: false });
      expect((await c.create({ subject: 'Off', description: 'x', requester_name: 'A' })).body.assignee_id).toBeNull();
    });

    it('refuses unknown setting fields and duplicate assignee ids', async () => {
      const ws = caller.ws.workspaceId;
      const unknown = await consolePatch(`/workspaces/${ws}/ticket-settings`, { auto: true });
      expect(unknown.status).toBe(400);
      const dup = await consolePatch(`/workspaces/${ws}/ticket-settings`, { assignees: [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }] });
      expect(dup.status).toBe(400);
      expect(dup.body.error.message).toBe('Request validation failed.');
    });

    it('lets the console assign a ticket to a listed assignee, or unassign it, as a new version without ticket.updated', async () => {
      const c = new Caller(api, await createTestWorkspace(api.db));
      const ws = c.ws.workspaceId;
      await consolePatch(`/workspaces/${ws}/ticket-settings`, { assignees: [{ id: 'u_1', name: 'One' }] });
      const t = await c.ticketIn('new');
      const assigned = await consolePost(`/workspaces/${ws}/tickets/${t.ticket_id}/assign`, { assignee_id: 'u_1' });
      expect(assigned.status).toBe(200);
      expect(assigned.body).toMatchObject({ assignee_id: 'u_1', assignee_name: 'One', version: t.version + 1 });
      const unknown = await consolePost(`/workspaces/${ws}/tickets/${t.ticket_id}/assign`, { assignee_id: 'u_x' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.details).toEqual({ reason: 'unknown_assignee' });
      const cleared = await consolePost(`/workspaces/${ws}/tickets/${t.ticket_id}/assign`, { assignee_id: null });
      expect(cleared.body).toMatchObject({ assignee_id: null, assignee_name: null, version: t.version + 2 });
      expect(await eventsOf(ws, 'ticket.updated', t.ticket_id)).toHaveLength(0);
    });
  });

  describe('GET', () => {
    it('reads the ticket as it is now', async () => {
      const t = await caller.ticketIn('pending');
      const res = await caller.get(t.ticket_id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(t);
    });

    it('answers 404 Ticket not found. for unknown, malformed and foreign ids alike', async () => {
      const other = new Caller(api, await createTestWorkspace(api.db));
      const foreign = await other.ticketIn('new');
      for (const id of ['tkt_000000000000000000000000', 'nope', foreign.ticket_id]) {
        const res = await caller.get(id);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(envelope('not_found', 'Ticket not found.'));
        const patched = await caller.patch(id, { expected_version: 1, status: 'open' });
        expect(patched.status).toBe(404);
        expect(patched.body).toEqual(envelope('not_found', 'Ticket not found.'));
      }
      expect((await other.get(foreign.ticket_id)).body.status).toBe('new');
    });
  });

  describe('PATCH', () => {
    it('answers 409 without a reason when expected_version is stale, and changes nothing', async () => {
      const t = await caller.ticketIn('open');
      const res = await caller.patch(t.ticket_id, { expected_version: t.version - 1, status: 'closed', priority: 'high' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(envelope('conflict', 'Ticket changed since it was loaded.', { expected_version: t.version - 1, current_version: t.version }));
      expect((await caller.get(t.ticket_id)).body).toEqual(t);
      const ahead = await caller.patch(t.ticket_id, { expected_version: t.version + 5 });
      expect(ahead.body.error.details).toEqual({ expected_version: t.version + 5, current_version: t.version });
    });

    describe('every move of the status table', () => {
      const cases = TICKET_STATUSES.flatMap((from) => TICKET_STATUSES.map((to) => [from, to] as const));
      it.each(cases)('%s -> %s', async (from, to) => {
        const t = await caller.ticketIn(from);
        const res = await caller.patch(t.ticket_id, { expected_version: t.version, status: to });
        if (from === to) {
          expect(res.status).toBe(200);
          expect(res.body).toEqual(t);
        } else if (canMove(from, to)) {
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ status: to, version: t.version + 1 });
        } else {
          expect(res.status).toBe(400);
          expect(res.body).toEqual(envelope('invalid_argument', `Cannot move a ticket from ${from} to ${to}.`, {}));
          expect((await caller.get(t.ticket_id)).body).toEqual(t);
        }
      });
    });

    it('checks the version before the move', async () => {
      const t = await caller.ticketIn('closed');
      const res = await caller.patch(t.ticket_id, { expected_version: t.version - 1, status: 'pending' });
      expect(res.status).toBe(409);
    });

    it.each(['status', 'priority', 'tags'])('refuses null for %s (validation)', async (field) => {
      const t = await caller.ticketIn('new');
      const res = await caller.patch(t.ticket_id, { expected_version: t.version, [field]: null });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', { errors: [expect.objectContaining({ loc: ['body', field] })] }),
      );
    });

    it.each([
      ['expected_version missing', {}],
      ['expected_version 0', { expected_version: 0 }],
      ['expected_version not an integer', { expected_version: 1.5 }],
      ['status unknown', { expected_version: 1, status: 'done' }],
      ['category over 80', { expected_version: 1, category: 'c'.repeat(81) }],
      ['more than 20 tags', { expected_version: 1, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }],
    ])('refuses %s', async (_, body) => {
      const t = await caller.ticketIn('new');
      const res = await caller.patch(t.ticket_id, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Request validation failed.');
    });

    it('sets and clears category, and replaces tags normalised (api kept only when sent)', async () => {
      const t = await caller.ticketIn('new');
      const set = await caller.patch(t.ticket_id, { expected_version: t.version, category: 'billing', tags: ['Needs Reply', 'needs reply', 'API', ...Array.from({ length: 17 }, (_, i) => `x${i}`)] });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ category: 'billing', version: t.version + 1 });
      expect(set.body.tags.slice(0, 2)).toEqual(['needs-reply', 'api']);
      expect(set.body.tags).toHaveLength(19);
      const cleared = await caller.patch(t.ticket_id, { expected_version: set.body.version, category: null, tags: ['only'] });
      expect(cleared.body).toMatchObject({ category: null, tags: ['only'], version: t.version + 2 });
    });

    it('returns the ticket as it is when nothing changes: same version, no event', async () => {
      const t = await caller.ticketIn('open', { priority: 'high' });
      const before = await eventsOf(caller.ws.workspaceId, 'ticket.updated', t.ticket_id);
      for (const body of [
        { expected_version: t.version },
        { expected_version: t.version, status: 'open', priority: 'high', category: null, tags: ['api'] },
      ]) {
        const res = await caller.patch(t.ticket_id, body);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(t);
      }
      expect(await eventsOf(caller.ws.workspaceId, 'ticket.updated', t.ticket_id)).toHaveLength(before.length);
    });

    it('counts a PATCH of several fields as one change, records it against the key and fires ticket.updated', async () => {
      const t = await caller.ticketIn('new');
      const res = await caller.patch(t.ticket_id, { expected_version: t.version, status: 'pending', priority: 'urgent', category: 'orders', tags: ['Late'] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'pending', priority: 'urgent', category: 'orders', tags: ['late'], version: t.version + 1 });
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(t.updated_at));

      const version = await ticketCollections(api.db).versions.findOne({ _id: `${t.ticket_id}:${t.version + 1}` });
      expect(version).toMatchObject({
        actor: { kind: 'api_key', key_id: caller.keyId },
        changes: {
          status: { from: 'new', to: 'pending' },
          priority: { from: 'normal', to: 'urgent' },
          category: { from: null, to: 'orders' },
          tags: { from: ['api'], to: ['late'] },
        },
      });
      const stored = await ticketCollections(api.db).tickets.findOne({ _id: t.ticket_id });
      expect(stored!.last_changed_by).toEqual({ kind: 'api_key', key_id: caller.keyId });

      const events = await eventsOf(caller.ws.workspaceId, 'ticket.updated', t.ticket_id);
      expect(events).toHaveLength(1);
      expect(events[0]!.dedupe_key).toBe(`ticket.updated:${t.ticket_id}:${t.version + 1}`);
      expect(events[0]!.data).toEqual({
        ticket_id: t.ticket_id,
        public_ref: res.body.public_ref,
        subject: res.body.subject,
        status: 'pending',
        priority: 'urgent',
        channel: 'api',
        category: 'orders',
        tags: ['late'],
        version: t.version + 1,
        changes: ['status', 'priority', 'category', 'tags'],
        previous_status: 'new',
      });
    });

    it('records the change against whichever key made it', async () => {
      const t = await caller.ticketIn('new');
      const other = await caller.ws.addKey(['tickets:write']);
      const res = await request(api.server).patch(`/api/v1/tickets/${t.ticket_id}`).set(bearer(other.key)).send({ expected_version: t.version, status: 'open' });
      expect(res.status).toBe(200);
      const version = await ticketCollections(api.db).versions.findOne({ _id: `${t.ticket_id}:${res.body.version}` });
      expect(version!.actor).toEqual({ kind: 'api_key', key_id: other.keyId });
    });

    it.each(['resolved', 'closed'] as const)('clears an open escalation and withdraws held replies on the move to %s', async (to) => {
      const ws = caller.ws.workspaceId;
      const t = await caller.ticketIn('open');
      const escalated = await consolePost(`/workspaces/${ws}/tickets/${t.ticket_id}/escalation`, { open: true, reason: 'VIP customer' });
      expect(escalated.status).toBe(200);
      expect(escalated.body.escalation).toEqual({ open: true, reason: 'VIP customer', opened_at: expect.stringMatching(TIMESTAMP), cleared_at: null });
      expect(escalated.body.version).toBe(t.version + 1);
      const { messages } = ticketCollections(api.db);
      await messages.insertOne({
        _id: `tmsg_held_${to}_${t.ticket_id}`,
        tenant_id: ws,
        ticket_id: t.ticket_id,
        seq: 2,
        kind: 'staff_reply',
        author_name: 'Agent',
        text: 'We are on it.',
        delivery_state: 'held',
        created_at: new Date(),
      });

      const moved = await caller.patch(t.ticket_id, { expected_version: t.version + 1, status: to });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ status: to, version: t.version + 2 });
      const shown = await consoleGet(`/workspaces/${ws}/tickets/${t.ticket_id}`);
      expect(shown.body.escalation).toEqual({ open: false, reason: 'VIP customer', opened_at: expect.stringMatching(TIMESTAMP), cleared_at: expect.stringMatching(TIMESTAMP) });
      expect(shown.body.messages.map((m: { kind: string; delivery_state: string | null }) => [m.kind, m.delivery_state])).toEqual([
        ['customer', null],
        ['staff_reply', 'withdrawn'],
      ]);
      const event = (await eventsOf(ws, 'ticket.updated', t.ticket_id)).find((e) => e.data.version === t.version + 2);
      expect(event!.data).toMatchObject({ changes: ['status'], previous_status: 'open', escalation_cleared: true });
    });

    it('leaves escalation and held replies alone on other moves', async () => {
      const ws = caller.ws.workspaceId;
      const t = await caller.ticketIn('open');
      await consolePost(`/workspaces/${ws}/tickets/${t.ticket_id}/escalation`, { open: true, reason: null });
      await ticketCollections(api.db).messages.insertOne({
        _id: `tmsg_held_keep_${t.ticket_id}`,
        tenant_id: ws,
        ticket_id: t.ticket_id,
        seq: 2,
        kind: 'staff_reply',
        author_name: null,
        text: 'Reply',
        delivery_state: 'held',
        created_at: new Date(),
      });
      await caller.patch(t.ticket_id, { expected_version: t.version + 1, status: 'waiting_customer' });
      const shown = await consoleGet(`/workspaces/${ws}/tickets/${t.ticket_id}`);
      expect(shown.body.escalation.open).toBe(true);
      expect(shown.body.messages[1].delivery_state).toBe('held');
    });

    it('lets exactly one of ten concurrent PATCHes at the same version win (five rounds)', async () => {
      const statuses = ['open', 'pending', 'waiting_customer', 'resolved', 'closed', 'open', 'pending', 'waiting_customer', 'resolved', 'closed'];
      for (let round = 0; round < 5; round++) {
        const t = await caller.ticketIn('new');
        const auths = await Promise.all(statuses.map(() => caller.auth()));
        const results = await Promise.all(
          statuses.map((status, i) => request(api.server).patch(`/api/v1/tickets/${t.ticket_id}`).set(auths[i]!).send({ expected_version: t.version, status })),
        );
        const won = results.filter((r) => r.status === 200);
        const lost = results.filter((r) => r.status === 409);
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(9);
        for (const r of lost) {
          expect(r.body).toEqual(envelope('conflict', 'Ticket changed since it was loaded.', { expected_version: t.version, current_version: t.version + 1 }));
        }
        const now = await caller.get(t.ticket_id);
        expect(now.body).toEqual(won[0]!.body);
        expect(now.body.version).toBe(t.version + 1);
        expect(await eventsOf(caller.ws.workspaceId, 'ticket.updated', t.ticket_id)).toHaveLength(1);
      }
    });

    it('finishes a version claimed by a request that died, then answers the conflict', async () => {
      const t = await caller.ticketIn('new');
      const next = t.version + 1;
      const claimedAt = new Date(Date.now() - 60_000);
      // What a PATCH that died between claiming the version and writing it leaves behind.
      await ticketCollections(api.db).versions.insertOne({
        _id: `${t.ticket_id}:${next}`,
        tenant_id: caller.ws.workspaceId,
        ticket_id: t.ticket_id,
        version: next,
        actor: { kind: 'api_key', key_id: caller.keyId },
        set: { status: 'pending', status_changed_at: claimedAt, updated_at: claimedAt, last_changed_by: { kind: 'api_key', key_id: caller.keyId } },
        changes: { status: { from: 'new', to: 'pending' } },
        event: 'ticket.updated',
        created_at: claimedAt,
      });
      expect((await caller.get(t.ticket_id)).body.version).toBe(t.version);
      const res = await caller.patch(t.ticket_id, { expected_version: t.version, status: 'open' });
      expect(res.status).toBe(409);
      expect(res.body.error.details).toEqual({ expected_version: t.version, current_version: next });
      const now = await caller.get(t.ticket_id);
      expect(now.body).toMatchObject({ status: 'pending', version: next });
      const events = await eventsOf(caller.ws.workspaceId, 'ticket.updated', t.ticket_id);
      expect(events.map((e) => [e.data.version, e.data.status, e.data.previous_status])).toEqual([[next, 'pending', 'new']]);
      const retry = await caller.patch(t.ticket_id, { expected_version: next, status: 'open' });
      expect(retry.body).toMatchObject({ status: 'open', version: next + 1 });
    });

    it('answers a conflict naming the claimed version while a live claim is being written', async () => {
      const t = await caller.ticketIn('new');
      await ticketCollections(api.db).versions.insertOne({
        _id: `${t.ticket_id}:${t.version + 1}`,
        tenant_id: caller.ws.workspaceId,
        ticket_id: t.ticket_id,
        version: t.version + 1,
        actor: { kind: 'api_key', key_id: caller.keyId },
        set: { priority: 'low' },
        changes: { priority: { from: 'normal', to: 'low' } },
        event: 'ticket.updated',
        created_at: new Date(),
      });
      const res = await caller.patch(t.ticket_id, { expected_version: t.version, status: 'open' });
      expect(res.status).toBe(409);
      expect(res.body.error.details).toEqual({ expected_version: t.version, current_version: t.version + 1 });
      // A fresh claim is its writer's to finish: nothing was written for it.
      expect((await caller.get(t.ticket_id)).body).toEqual(t);
    });
  });

  describe('capability and scope', () => {
    it('answers 412 unsupported_resource on every ticket route when the deployment lacks tickets', async () => {
      const c = new Caller(api, await createTestWorkspace(api.db));
      const t = await c.ticketIn('new');
      const off = await consolePatch(`/workspaces/${c.ws.workspaceId}`, { capabilities: { tickets: false } });
      expect(off.status).toBe(200);
      const expected = envelope('failed_precondition', 'Tickets are not available on this deployment.', { reason: 'unsupported_resource' });
      const responses = [
        await c.create({ subject: 'x', description: 'x', requester_name: 'A' }),
        await c.get(t.ticket_id),
        await c.get('tkt_000000000000000000000000'),
        await c.patch(t.ticket_id, { expected_version: t.version, status: 'open' }),
      ];
      for (const res of responses) {
        expect(res.status).toBe(412);
        expect(res.body).toEqual(expected);
      }
      await consolePatch(`/workspaces/${c.ws.workspaceId}`, { capabilities: { tickets: true } });
      expect((await c.get(t.ticket_id)).status).toBe(200);
    });

    it('answers 403 missing_scope without tickets:write', async () => {
      const t = await caller.ticketIn('new');
      const { key } = await caller.ws.addKey(['contacts:write', 'campaigns:write']);
      const expected = envelope('permission_denied', 'This key lacks the tickets:write scope this route requires.', {
        reason: 'missing_scope',
        required_scope: 'tickets:write',
      });
      const responses = [
        await request(api.server).post('/api/v1/tickets').set(bearer(key)).send({ subject: 'x', description: 'x', requester_name: 'A' }),
        await request(api.server).get(`/api/v1/tickets/${t.ticket_id}`).set(bearer(key)),
        await request(api.server).patch(`/api/v1/tickets/${t.ticket_id}`).set(bearer(key)).send({ expected_version: 1 }),
      ];
      for (const res of responses) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(expected);
      }
    });

    it('is described in the OpenAPI document with its scope', async () => {
      const res = await request(api.server).get('/api/v1/openapi.json');
      const paths = res.body.paths;
      expect(paths['/api/v1/tickets'].post['x-required-scope']).toBe('tickets:write');
      expect(paths['/api/v1/tickets/{ticket_id}'].get['x-required-scope']).toBe('tickets:write');
      expect(paths['/api/v1/tickets/{ticket_id}'].patch.requestBody.content['application/json'].schema.required).toEqual(['expected_version']);
      expect(paths['/api/v1/tickets'].post.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    });
  });

  it('keeps workspaces written before ticket settings existed working (no ticket_settings field)', async () => {
    const c = new Caller(api, await createTestWorkspace(api.db));
    const doc = await collections(api.db).workspaces.findOne({ _id: c.ws.workspaceId });
    expect(doc).not.toHaveProperty('ticket_settings');
    const res = await c.create({ subject: 'Old workspace', description: 'x', requester_name: 'A' });
    expect(res.status).toBe(201);
    expect(res.body.assignee_id).toBeNull();
  });
});
