import request from 'supertest';
import { stagingCollections } from '../../../src/campaigns/staging';
import { waitFor } from '../../../src/local/net';
import { startTestApi, type TestApi } from '../../support/app';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, zoneOpenAt } from '../../support/campaigns';
import { answeredWithin } from '../../support/deadline';
import { bearer } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/** GET routes of another workspace, read in turn while the campaign is cancelled. */
const READS = ['/api/v1/campaigns', '/api/v1/agents', '/api/v1/channels', '/api/v1/conversations'];
/** A read that has not answered by then counts as a failure (the database froze). */
const READ_DEADLINE_MS = 15_000;

/**
 * Issue 24: cancelling a 2,000-person campaign skipped its queued recipients in bulk writes of
 * 100 statements, which FerretDB 1.24.2 as released never answered (one pooled connection held
 * per statement, 100 in the pool): every workspace's requests failed from then on. Now: the
 * cancel settles (everyone not sent is skipped) while another workspace's reads keep answering 200.
 */
describe('cancelling a large campaign while another workspace reads', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  let other: TestWorkspace;
  const provider = new CountingWhatsAppProvider();

  beforeAll(async () => {
    api = await startTestApi({ worker: { whatsapp: provider } });
    ws = await createTestWorkspace(api.db);
    other = await createTestWorkspace(api.db);
  });
  afterAll(async () => {
    await api?.close();
  });

  /** Reads `READS` in turn with the other workspace's keys (a new key every 100: 120 a minute each) until stopped. */
  function keepReading() {
    const statuses: (number | string)[] = [];
    let stopped = false;
    const loop = (async () => {
      let key = other.key;
      for (let n = 0; !stopped; n++) {
        if (n > 0 && n % 100 === 0) key = (await other.addKey(['campaigns:read', 'agents:read', 'conversations:read'])).key;
        const res = await request(api.server)
          .get(READS[n % READS.length]!)
          .set(bearer(key))
          .timeout(READ_DEADLINE_MS)
          .then(
            (r) => r.status,
            (err: Error) => err.message,
          );
        statuses.push(res);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    return {
      statuses,
      stop: async () => {
        stopped = true;
        await loop;
      },
    };
  }

  it('skips every queued person and the other workspace reads 200 throughout', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 2_000);
    const campaign = await insertCampaignDraft(api.db, ws.workspaceId, {
      contactIds: people.map((p) => p._id),
      schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) },
    });
    const post = (action: string, body: Record<string, number>) =>
      request(api.server).post(`/api/v1/campaigns/${campaign._id}/${action}`).set(bearer(ws.key)).send(body);

    const reads = keepReading();
    try {
      const launched = await post('launch', { expected_version: 1, confirm_recipients: 2_000 });
      expect([launched.status, launched.body.status, launched.body.recipients]).toEqual([200, 'running', 2_000]);
      // About 8 s of sends at 10 a second, then paused and cancelled, as the report did.
      await waitFor('the first sends', () => Promise.resolve(provider.total() >= 80), 60_000, 100);
      const paused = await post('pause', { expected_version: launched.body.version });
      expect([paused.status, paused.body.status]).toEqual([200, 'paused']);
      const cancelled = await post('cancel', { expected_version: paused.body.version });
      expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);

      const { recipients } = stagingCollections(api.db);
      const queued = () => answeredWithin('count of queued', recipients.countDocuments({ campaign_id: campaign._id, state: 'queued' }), READ_DEADLINE_MS);
      await waitFor('every queued person skipped', async () => (await queued()) === 0, 60_000, 250);
      const sent = provider.total();
      expect(await recipients.countDocuments({ campaign_id: campaign._id, state: 'skipped', skip_reason: 'cancelled' })).toBe(2_000 - sent);
      expect(await recipients.countDocuments({ campaign_id: campaign._id, state: 'sent' })).toBe(sent);
      // The run's last recount reaches the counters the API answers with.
      await waitFor(
        'the counters',
        async () => {
          const res = await request(api.server).get(`/api/v1/campaigns/${campaign._id}`).set(bearer(ws.key));
          return res.status === 200 && res.body.skipped === 2_000 - sent && res.body.sent === sent;
        },
        30_000,
        1_000,
      );
    } finally {
      await reads.stop();
    }
    expect(reads.statuses.length).toBeGreaterThan(10);
    expect(reads.statuses.filter((s) => s !== 200)).toEqual([]);
  }, 120_000);
});
