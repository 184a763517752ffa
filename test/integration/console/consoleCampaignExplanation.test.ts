import request from 'supertest';
import { credentialsChanged } from '../../../src/auth/credentialCache';
import { collections } from '../../../src/db/collections';
import { startTestApi, type TestApi } from '../../support/app';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, insertVoiceCampaignDraft, scriptCallee, zoneAtNineInTheEvening, zoneOpenAt } from '../../support/campaigns';
import { bearer } from '../../support/http';
import { createTestWorkspace, suspend, type TestWorkspace } from '../../support/workspaces';

const DOCS = 'https://docs.orchestrator.dev/campaigns#';

/**
 * The console's campaign read explains what the run is doing and why (src/campaigns/runExplanation.ts),
 * over HTTP with a real worker: a call campaign launched after its calling window waits for
 * it (and its launch, console or public, says so), a campaign whose workspace is suspended
 * mid-run is held with the reason and its fix, and a call campaign shows call progress.
 */
describe('console campaign explanation (GET /console/v1/workspaces/{id}/campaigns/{campaign_id})', () => {
  let api: TestApi;
  const admin = () => bearer(api.config.CONSOLE_TOKEN!);

  beforeAll(async () => {
    api = await startTestApi({ worker: { whatsapp: new CountingWhatsAppProvider() } });
  });
  afterAll(async () => {
    await api?.close();
  });

  const one = (ws: TestWorkspace, id: string) => `/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}`;
  const read = async (ws: TestWorkspace, id: string) => {
    const res = await request(api.server).get(one(ws, id)).set(admin());
    expect(res.status).toBe(200);
    return res.body;
  };
  const act = (ws: TestWorkspace, id: string, action: string, body: object) => request(api.server).post(`${one(ws, id)}/${action}`).set(admin()).send(body);

  /** A workspace whose own zone is `zone`, so the sentences' times read in it. */
  async function workspaceIn(zone: string): Promise<TestWorkspace> {
    const ws = await createTestWorkspace(api.db);
    await collections(api.db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { timezone: zone } });
    credentialsChanged(ws.workspaceId);
    return ws;
  }

  it('a call campaign launched after its calling window: running, waiting for the window, and the launch notice says when it opens', async () => {
    const zone = zoneAtNineInTheEvening(new Date());
    const ws = await workspaceIn(zone);
    const people = await insertContacts(api.db, ws.workspaceId, 3);
    const c = await insertVoiceCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), agentId: ws.agentId, schedule: { timezone: zone, throttle_per_minute: 10 } });
    const launched = await act(ws, c._id, 'launch', { expected_version: 1, confirm_recipients: 3 });
    expect(launched.status).toBe(200);
    expect(launched.body.status).toBe('running');
    expect(launched.body.notices).toEqual([
      {
        code: 'window_closed',
        severity: 'info',
        message: `The calling window (10:00–19:00 in ${zone}) is shut now; the first call goes at 10:00 tomorrow (${zone}).`,
        fix: 'Nothing to do: the campaign waits for the window. Pause or cancel it if it should not go then.',
        docs: `${DOCS}window-closed`,
        count: 3,
      },
    ]);
    const shown = await read(ws, c._id);
    expect(shown.status).toBe('running');
    expect(shown.calls).toEqual({ dialled: 0, answered: 0, conversation: 0, completed: 0, call_backs: 0, live: 0 });
    expect(shown.explanation).toMatchObject({
      state: 'waiting_for_window',
      headline: `Waiting for the calling window: calls go 10:00–19:00 in ${zone}; it opens 10:00 tomorrow (${zone}).`,
      details: [`3 people still to call, up to 10 calls a minute, 10:00–19:00 in ${zone}.`, `At the throttle the last call goes about 10:00 tomorrow (${zone}); calls that run long or a full set of live calls make it later.`],
      held_reason: null,
      time_zone: zone,
      window: { start_hour: 10, end_hour: 19, time_zone: zone, per_recipient_zone: false, open: false, opens_at: expect.stringMatching(/T\d\d:00:00\.000Z$/) },
      remaining: 3,
    });
    expect(await act(ws, c._id, 'cancel', { expected_version: shown.version })).toHaveProperty('status', 200);
  });

  it('the public launch answers the same notice for a WhatsApp campaign after its send window', async () => {
    const zone = zoneAtNineInTheEvening(new Date());
    const ws = await workspaceIn(zone);
    const people = await insertContacts(api.db, ws.workspaceId, 2);
    const c = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), schedule: { timezone: zone } });
    const res = await request(api.server).post(`/api/v1/campaigns/${c._id}/launch`).set(bearer(ws.key)).send({ expected_version: 1 });
    expect(res.status).toBe(200);
    expect(res.body.notices).toEqual([
      {
        code: 'window_closed',
        severity: 'info',
        message: `The send window (09:00–21:00 in ${zone}) is shut now; the first message goes at 09:00 tomorrow (${zone}).`,
        fix: 'Nothing to do: the campaign waits for the window. Pause or cancel it if it should not go then.',
        docs: `${DOCS}window-closed`,
        count: 2,
      },
    ]);
    expect((await read(ws, c._id)).explanation.state).toBe('waiting_for_window');
    expect(await act(ws, c._id, 'cancel', { expected_version: 2 })).toHaveProperty('status', 200);
  });

  it('a campaign whose workspace is suspended mid-run is held: the run’s reason, its fix and its docs', async () => {
    const ws = await createTestWorkspace(api.db);
    const people = await insertContacts(api.db, ws.workspaceId, 20);
    const c = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 60 } });
    expect((await act(ws, c._id, 'launch', { expected_version: 1 })).status).toBe(200);
    const sending = await read(ws, c._id);
    expect(['sending', 'settling']).toContain(sending.explanation.state);
    expect(sending.explanation.headline).toMatch(/^Sending: up to 60 messages a minute, 09:00–21:00 in Etc\/GMT|^Sending: up to 60 messages a minute, 09:00–21:00 in UTC/);
    await suspend(api.db, ws.workspaceId);
    let shown = await read(ws, c._id);
    for (let i = 0; i < 100 && shown.explanation.state !== 'held'; i++) {
      await new Promise((r) => setTimeout(r, 300));
      shown = await read(ws, c._id);
    }
    expect(shown.status).toBe('running');
    expect(shown.explanation).toMatchObject({
      state: 'held',
      headline: 'Held: the workspace is suspended for billing.',
      details: [`${shown.states.queued} people still to send to; nothing goes out until this is fixed.`],
      held_reason: 'workspace_suspended',
      fix: 'Pay the open invoice; the run looks again every 5 minutes.',
      docs: `${DOCS}workspace-suspended`,
      eta: null,
    });
    expect(await act(ws, c._id, 'cancel', { expected_version: shown.version })).toHaveProperty('status', 200);
  });

  it('a call campaign shows its call progress, and its explanation counts calls, not messages', async () => {
    const ws = await createTestWorkspace(api.db);
    const people = await insertContacts(api.db, ws.workspaceId, 2);
    await scriptCallee(api.db, ws.workspaceId, people[0]!.phone!, { ring_seconds: 0, seconds_per_turn: 0.05 });
    await scriptCallee(api.db, ws.workspaceId, people[1]!.phone!, { answer: false, ring_seconds: 0, network_outcome: 'busy' });
    const c = await insertVoiceCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), agentId: ws.agentId, schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 } });
    const launched = await act(ws, c._id, 'launch', { expected_version: 1 });
    expect([launched.status, launched.body.notices]).toEqual([200, []]);
    let shown = await read(ws, c._id);
    for (let i = 0; i < 300 && shown.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 300));
      shown = await read(ws, c._id);
    }
    expect(shown.status).toBe('completed');
    expect(shown.calls).toEqual({ dialled: 2, answered: 1, conversation: 1, completed: 1, call_backs: 0, live: 0 });
    expect(shown.explanation.state).toBe('completed');
    expect(shown.explanation.headline).toMatch(/^Completed \d\d:\d\d today \(.+\): 2 people dialled, 1 answered, 1 completed\.$/);
  });
});
