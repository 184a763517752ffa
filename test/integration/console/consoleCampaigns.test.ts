import request from 'supertest';
import { startTestApi, type TestApi } from '../../support/app';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, tomorrowNoonUtc, zoneOpenAt } from '../../support/campaigns';
import { bearer, envelope } from '../../support/http';
import { eventsOf } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const DOCS = 'https://docs.orchestrator.dev/campaigns#';

/**
 * The console's campaign routes over HTTP with a real worker: the public use cases acting for
 * the workspace without a key, archive, the timeline and the workspace's campaign settings.
 */
describe('console campaigns (/console/v1/workspaces/{id}/campaigns)', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  let admin: { Authorization: string };
  const provider = new CountingWhatsAppProvider();

  beforeAll(async () => {
    api = await startTestApi({ worker: { whatsapp: provider } });
    ws = await createTestWorkspace(api.db);
    admin = bearer(api.config.CONSOLE_TOKEN!);
  });
  afterAll(async () => {
    await api?.close();
  });

  const base = () => `/console/v1/workspaces/${ws.workspaceId}/campaigns`;
  const get = (path: string) => request(api.server).get(path).set(admin);
  const post = (path: string, body?: unknown) => {
    const req = request(api.server).post(path).set(admin);
    return body === undefined ? req : req.send(body as object);
  };
  const act = (id: string, action: string, body?: unknown) => post(`${base()}/${id}/${action}`, body);

  async function draft(count: number, schedule: Record<string, unknown>) {
    const people = await insertContacts(api.db, ws.workspaceId, count);
    return insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), schedule: schedule as never });
  }
  const later = () => ({ start_at: tomorrowNoonUtc(), throttle_per_minute: 60, timezone: 'UTC' });
  const now = () => ({ throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) });

  it('needs the console token', async () => {
    const res = await request(api.server).get(base());
    expect(res.status).toBe(401);
    expect(res.body).toEqual(envelope('unauthenticated', 'Send the console token as Authorization: Bearer <token>.', { reason: 'invalid_console_token' }));
  });

  it('an unknown workspace is 404 Workspace not found.; an unknown, malformed or foreign campaign is 404 Campaign not found.', async () => {
    expect((await get('/console/v1/workspaces/ws_missing/campaigns')).body).toEqual(envelope('not_found', 'Workspace not found.'));
    const other = await createTestWorkspace(api.db);
    const foreign = await insertCampaignDraft(api.db, other.workspaceId, { contactIds: [] });
    for (const id of ['cmp_000000000000000000000000', 'not-a-campaign', foreign._id]) {
      for (const res of [await get(`${base()}/${id}`), await act(id, 'pause', { expected_version: 1 }), await get(`${base()}/${id}/timeline`)]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(envelope('not_found', 'Campaign not found.'));
      }
    }
  });

  it('launches, pauses, resumes and cancels with the public rules; archive only once finished', async () => {
    const c = await draft(2, later());
    const shown = await get(`${base()}/${c._id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      campaign_id: c._id,
      status: 'draft',
      version: 1,
      sent: 0,
      counters: { sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 },
      schedule: { timezone: 'UTC', throttle_per_minute: 60, send_window_start_hour: 9, send_window_end_hour: 21 },
      audience: { kind: 'contact_ids', contact_id_count: 2 },
      template: { name: 'order_update' },
      consent: { basis: 'existing_customer', pinned_at: null, checksum: null },
    });
    expect(shown.body.metadata).toBeUndefined();

    const evaluated = await act(c._id, 'evaluate');
    expect(evaluated.status).toBe(200);
    expect(evaluated.body).toMatchObject({ eligible: 2, total_rows: 2, checksum: expect.stringMatching(/^sha256:/) });

    let res = await act(c._id, 'pause', { expected_version: 1 });
    expect(res.status).toBe(412);
    expect(res.body).toEqual(
      envelope('failed_precondition', 'This campaign is a draft; there is nothing to pause.', {
        reason: 'campaign_not_launched',
        docs: `${DOCS}campaign-not-launched`,
        fix: 'Launch the campaign first.',
      }),
    );
    res = await act(c._id, 'archive');
    expect(res.status).toBe(412);
    expect(res.body).toEqual(
      envelope('failed_precondition', 'This campaign is draft; only a finished campaign can be archived.', {
        reason: 'campaign_not_finished',
        docs: `${DOCS}campaign-not-finished`,
        fix: 'Wait until the campaign completes, or cancel it first.',
      }),
    );
    res = await act(c._id, 'launch', { expected_version: 1, confirm_recipients: 3 });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({ reason: 'version_conflict', eligible: 2, confirm_recipients: 3 });
    res = await act(c._id, 'launch', {});
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].loc).toEqual(['body', 'expected_version']);

    res = await act(c._id, 'launch', { expected_version: 1, confirm_recipients: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'scheduled', version: 2, recipients: 2, notices: [], consent: { pinned_recipients: 2 } });
    res = await act(c._id, 'pause', { expected_version: 2 });
    expect([res.status, res.body.status, res.body.version]).toEqual([200, 'paused', 3]);
    res = await act(c._id, 'resume', { expected_version: 2 });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(envelope('conflict', 'This campaign is at version 3, not 2; read it again.', { reason: 'version_conflict', current_version: 3 }));
    res = await act(c._id, 'resume', { expected_version: 3 });
    expect([res.status, res.body.status, res.body.version]).toEqual([200, 'scheduled', 4]);
    res = await act(c._id, 'archive');
    expect(res.status).toBe(412);
    expect(res.body.error.message).toBe('This campaign is scheduled; only a finished campaign can be archived.');
    res = await act(c._id, 'cancel', { expected_version: 4 });
    expect([res.status, res.body.status, res.body.version]).toEqual([200, 'cancelled', 5]);

    // One event per move, the version that made it.
    const lifecycle = (await eventsOf(api.db, ws.workspaceId))
      .filter((e) => e.type !== 'campaign.launched' && e.data.campaign_id === c._id)
      .map((e) => [e.type, e.data.status, e.data.version])
      .sort((a, b) => (a[2] as number) - (b[2] as number));
    expect(lifecycle).toEqual([
      ['campaign.paused', 'paused', 3],
      ['campaign.resumed', 'scheduled', 4],
      ['campaign.ended', 'cancelled', 5],
    ]);

    res = await act(c._id, 'archive');
    expect([res.status, res.body.status, res.body.version]).toEqual([200, 'archived', 6]);
    // Archiving again changes nothing; an archived campaign is frozen for every other action.
    res = await act(c._id, 'archive', { expected_version: 1 });
    expect([res.status, res.body.status, res.body.version]).toEqual([200, 'archived', 6]);
    res = await act(c._id, 'launch', { expected_version: 6 });
    expect(res.status).toBe(412);
    expect(res.body.error.details.reason).toBe('campaign_frozen');

    // Hidden from the list unless asked for.
    const ids = async (query: string) => ((await get(`${base()}?${query}`)).body.items as { campaign_id: string }[]).map((i) => i.campaign_id);
    expect(await ids('limit=100')).not.toContain(c._id);
    expect(await ids('limit=100&include_archived=true')).toContain(c._id);
    expect(await ids('status=archived')).toEqual([c._id]);
  });

  it('lists most recently changed first, by status, a page at a time; refuses a bad limit, status or cursor', async () => {
    const other = await createTestWorkspace(api.db);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await insertCampaignDraft(api.db, other.workspaceId, { contactIds: [] }));
    const list = (query: string) => get(`/console/v1/workspaces/${other.workspaceId}/campaigns?${query}`);
    const first = await list('limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items.map((i: { campaign_id: string }) => i.campaign_id)).toEqual([made[2]!._id, made[1]!._id]);
    expect(first.body.items[0]).toMatchObject({ status: 'draft', counters: { sent: 0 } });
    const second = await list(`limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body).toMatchObject({ items: [{ campaign_id: made[0]!._id }], next_cursor: null });
    expect((await list('status=running')).body.items).toEqual([]);
    for (const query of ['limit=0', 'limit=101', 'status=done', 'include_archived=yes', 'cursor=broken']) {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Request validation failed.');
    }
  });

  it('runs to completed; recipients page by position; the timeline counts each minute; counters equal the recipients’ states', async () => {
    const c = await draft(3, now());
    expect((await act(c._id, 'launch', { expected_version: 1 })).status).toBe(200);
    await waitFor(async () => (await get(`${base()}/${c._id}`)).body.status === 'completed');
    const shown = (await get(`${base()}/${c._id}`)).body;
    expect(shown).toMatchObject({ recipients: 3, sent: 3, counters: { sent: 3, delivered: 0, read: 0, failed: 0, skipped: 0 } });

    const page1 = await get(`${base()}/${c._id}/recipients?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((r: { position: number; state: string }) => [r.position, r.state])).toEqual([[0, 'sent'], [1, 'sent']]);
    const page2 = await get(`${base()}/${c._id}/recipients?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    expect(page2.body).toMatchObject({ items: [{ position: 2, state: 'sent' }], next_cursor: null });
    expect((await get(`${base()}/${c._id}/recipients?limit=101`)).status).toBe(400);

    const timeline = await get(`${base()}/${c._id}/timeline`);
    expect(timeline.status).toBe(200);
    expect(timeline.body).toMatchObject({ campaign_id: c._id, bucket_seconds: 60, recipients: 3 });
    const points = timeline.body.items as { at: string; queued: number; sent: number }[];
    expect(points.length).toBeGreaterThanOrEqual(1);
    for (const p of points) expect(p.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    expect(points.at(-1)).toMatchObject({ queued: 0, sent: 3, delivered: 0, read: 0, failed: 0, skipped: 0 });
    expect([...points].sort((a, b) => a.at.localeCompare(b.at))).toEqual(points);

    // campaign.ended is published after the run's move to completed is written (campaigns/control.ts moveCampaignFromRun): wait for it.
    const endedEvents = async () => (await eventsOf(api.db, ws.workspaceId, 'campaign.ended')).filter((e) => e.data.campaign_id === c._id);
    await waitFor(async () => (await endedEvents()).length > 0);
    const ended = await endedEvents();
    expect(new Date(ended[0]!.data.completed_at as string).getTime()).toBe(new Date(shown.completed_at).getTime());
    expect(ended.map((e) => e.data)).toEqual([
      { campaign_id: c._id, name: 'Broadcast', status: 'completed', version: 3, recipients: 3, sent: 3, delivered: 0, read: 0, failed: 0, skipped: 0, completed_at: expect.stringMatching(/^\d{4}-.+Z$/) },
    ]);

    const res = await act(c._id, 'archive');
    expect([res.status, res.body.status]).toEqual([200, 'archived']);
  });

  describe('campaign settings', () => {
    const settings = () => `/console/v1/workspaces/${ws.workspaceId}/campaign-settings`;
    const patch = (body: unknown) => request(api.server).patch(settings()).set(admin).send(body as object);

    it('shows the defaults, changes the named keys, and drafts created afterwards take them', async () => {
      const fresh = await createTestWorkspace(api.db);
      expect((await get(`/console/v1/workspaces/${fresh.workspaceId}/campaign-settings`)).body).toEqual({
        throttle_per_minute: 60,
        send_window_start_hour: 9,
        send_window_end_hour: 21,
        timezone: null,
        effective_timezone: 'Asia/Kolkata',
        max_recipients_per_campaign: 50_000,
      });
      const res = await patch({ throttle_per_minute: 240, send_window_start_hour: 10, timezone: 'Europe/London' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        throttle_per_minute: 240,
        send_window_start_hour: 10,
        send_window_end_hour: 21,
        timezone: 'Europe/London',
        effective_timezone: 'Europe/London',
        max_recipients_per_campaign: 50_000,
      });
      const created = await request(api.server)
        .post('/api/v1/campaigns')
        .set(bearer(ws.key))
        .send({ name: 'After settings', audience: { contact_ids: [] }, template: { name: 'order_update', variables: ['a', 'b', 'c'] } });
      expect(created.status).toBe(201);
      expect((await get(`${base()}/${created.body.campaign_id}`)).body.schedule).toEqual({
        start_at: null,
        timezone: 'Europe/London',
        throttle_per_minute: 240,
        send_window_start_hour: 10,
        send_window_end_hour: 21,
      });
      expect((await patch({ timezone: null })).body).toMatchObject({ timezone: null, effective_timezone: 'Asia/Kolkata' });
    });

    it('refuses values outside the limits, unknown fields and a window with no open hour', async () => {
      for (const [body, loc] of [
        [{ throttle_per_minute: 601 }, ['body', 'throttle_per_minute']],
        [{ throttle_per_minute: 0 }, ['body', 'throttle_per_minute']],
        [{ send_window_start_hour: 8 }, ['body', 'send_window_start_hour']],
        [{ send_window_end_hour: 22 }, ['body', 'send_window_end_hour']],
        [{ max_recipients_per_campaign: 50_001 }, ['body', 'max_recipients_per_campaign']],
        [{ timezone: 'Mars/Olympus' }, ['body', 'timezone']],
        [{ burst: true }, ['body']],
      ] as const) {
        const res = await patch(body);
        expect(res.status).toBe(400);
        expect(res.body.error.message).toBe('Request validation failed.');
        expect(res.body.error.details.errors[0].loc).toEqual(loc);
      }
      const res = await patch({ send_window_start_hour: 15, send_window_end_hour: 12 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [
            {
              loc: ['body', 'send_window_end_hour'],
              msg: 'The send window 15:00 to 12:00 has no open hour; the end must come after the start (within 9:00 to 21:00).',
              type: 'send_window_empty',
            },
          ],
        }),
      );
    });
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not met in time');
}
