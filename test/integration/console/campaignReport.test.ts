import request from 'supertest';
import { campaignCollections } from '../../../src/campaigns/campaign';
import { REPORT_SCAN_MAX } from '../../../src/campaigns/report';
import { recipientId, stagingCollections, type CampaignRecipientDoc, type RecipientState } from '../../../src/campaigns/staging';
import { collections } from '../../../src/db/collections';
import { useTestApi } from '../../support/app';
import { insertCampaignDraft, insertContacts, insertVoiceCampaignDraft } from '../../support/campaigns';
import { envelope } from '../../support/http';
import { CONSOLE } from '../../support/messaging';

/**
 * The campaign page's report, export and preview over HTTP (issue 35 §1): each staged person
 * with their state and its reason in words, one state only, paged by position; the CSV of the
 * same rows; what the campaign sends, filled for a real person. The staged people are written
 * as the run writes them (one record per position), so every state and reason is exact.
 */
describe('console campaign report, CSV and preview', () => {
  const { api, ws } = useTestApi();
  const base = (id: string) => `/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}`;
  const get = (path: string) => request(api.server).get(path).set(CONSOLE);
  /** A customer's message, as WhatsApp's webhook brings it (the console's injection route). */
  async function reply(from: string, text: string, at: string) {
    const res = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/whatsapp/inbound`).set(CONSOLE).send({ from, text, received_at: at });
    expect(res.status).toBe(201);
  }

  /** A completed campaign of `states.length` staged people, person i in `states[i]`. */
  async function completedWith(states: [RecipientState, string | null][]) {
    const people = await insertContacts(api.db, ws.workspaceId, Math.min(states.length, 3));
    const c = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), name: 'Report' });
    const at = new Date('2026-11-27T07:43:05Z');
    const docs: CampaignRecipientDoc[] = states.map(([state, reason], position) => ({
      _id: recipientId(c._id, position),
      tenant_id: ws.workspaceId,
      campaign_id: c._id,
      position,
      contact_id: people[position]?._id ?? null,
      ...(people[position] ? {} : { row: position + 2 }),
      to: `+9198000${String(position).padStart(5, '0')}`,
      name: `Person ${position}`,
      variables: [`Person ${position}`, 'A-1', 'Friday'],
      state,
      skip_reason: reason,
      message_id: null,
      state_at: at,
      created_at: at,
    }));
    for (let i = 0; i < docs.length; i += 500) await stagingCollections(api.db).recipients.insertMany(docs.slice(i, i + 500));
    await campaignCollections(api.db).campaigns.updateOne({ _id: c._id }, { $set: { status: 'completed', recipients: docs.length, version: 3, launched_at: new Date('2026-11-27T07:40:00Z') } });
    return c;
  }

  it('lists each person with their state and the reason in words; state keeps one state, paged by position', async () => {
    const c = await completedWith([
      ['delivered', null],
      ['skipped', 'suppressed'],
      ['failed', 'provider_error'],
      ['read', null],
      ['failed', 'outcome_unknown'],
    ]);
    const all = await get(`${base(c._id)}/recipients`);
    expect(all.status).toBe(200);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.items.map((r: Record<string, unknown>) => [r.position, r.name, r.state, r.reason, r.status_words])).toEqual([
      [0, 'Person 0', 'delivered', null, 'Delivered to their phone.'],
      [1, 'Person 1', 'skipped', 'suppressed', 'Skipped. Not sent: they opted out of messages from this business.'],
      [2, 'Person 2', 'failed', 'provider_error', 'Failed. Refused by WhatsApp when sending.'],
      [3, 'Person 3', 'read', null, 'Read.'],
      [4, 'Person 4', 'failed', 'outcome_unknown', 'Failed. Not known whether it was sent: the provider did not answer; it was not sent again.'],
    ]);
    expect(all.body.items[3]).toMatchObject({ contact_id: null, row: 5, state_at: '2026-11-27T07:43:05.000000+00:00' });
    expect(all.body.items.map((r: { reply: unknown }) => r.reply)).toEqual([null, null, null, null, null]);

    // A reply after the launch is the person's reply; one from before it is not.
    await reply('+919800000003', 'Before the campaign', '2026-11-27T07:00:00Z');
    expect((await get(`${base(c._id)}/recipients`)).body.items[3].reply).toBeNull();
    await reply('+919800000003', 'Please call me after 6', '2026-11-27T08:05:00Z');
    expect((await get(`${base(c._id)}/recipients`)).body.items.map((r: { reply: unknown }) => r.reply)).toEqual([
      null,
      null,
      null,
      { text: 'Please call me after 6', at: '2026-11-27T08:05:00.000000+00:00' },
      null,
    ]);

    const first = await get(`${base(c._id)}/recipients?state=failed&limit=1`);
    expect(first.body.items.map((r: { position: number }) => r.position)).toEqual([2]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await get(`${base(c._id)}/recipients?state=failed&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items.map((r: { position: number }) => r.position)).toEqual([4]);
    expect(second.body.next_cursor).toBeNull();

    // A cursor of one filter is refused by another (it names its list).
    const crossed = await get(`${base(c._id)}/recipients?state=read&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(crossed.status).toBe(400);
    const bad = await get(`${base(c._id)}/recipients?state=lost`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_argument');
    expect(bad.body.error.details.errors[0].loc).toEqual(['query', 'state']);
  });

  it('a filtered page reads at most REPORT_SCAN_MAX positions by _id and answers the rest by cursor', async () => {
    const states: [RecipientState, string | null][] = Array.from({ length: REPORT_SCAN_MAX + 10 }, (_, i) => (i === REPORT_SCAN_MAX + 5 ? ['skipped', 'cancelled'] : ['read', null]));
    const c = await completedWith(states);
    const first = await get(`${base(c._id)}/recipients?state=skipped`);
    expect(first.body.items).toEqual([]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await get(`${base(c._id)}/recipients?state=skipped&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items.map((r: { position: number; status_words: string }) => [r.position, r.status_words])).toEqual([
      [REPORT_SCAN_MAX + 5, 'Skipped. Not sent: the campaign was cancelled before reaching them.'],
    ]);
    expect(second.body.next_cursor).toBeNull();
  });

  it('exports the report as CSV (the filter applied), times in UTC and in the workspace zone', async () => {
    const zone = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.timezone;
    await collections(api.db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { timezone: 'Asia/Kolkata' } });
    try {
      const c = await completedWith([
        ['delivered', null],
        ['failed', 'provider_error'],
      ]);
      await reply('+919800000000', 'Yes, Friday works', '2026-11-27T07:50:00Z');
      const res = await get(`${base(c._id)}/recipients.csv`).buffer(true).parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => (text += chunk));
        r.on('end', () => done(null, text));
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${c._id}-recipients.csv"`);
      const people = await stagingCollections(api.db).recipients.find({ campaign_id: c._id }).sort({ position: 1 }).toArray();
      expect((res.body as string).split('\n').filter(Boolean)).toEqual([
        '\uFEFFposition,name,phone,contact_id,row,status,reason,reason_words,status_at_utc,status_at_local,reply,reply_at_local,time_zone',
        `0,Person 0,+919800000000,${people[0]!.contact_id},,delivered,,Delivered to their phone.,2026-11-27T07:43:05.000Z,2026-11-27 13:13:05,"Yes, Friday works",2026-11-27 13:20:00,Asia/Kolkata`,
        `1,Person 1,+919800000001,${people[1]!.contact_id},,failed,provider_error,Failed. Refused by WhatsApp when sending.,2026-11-27T07:43:05.000Z,2026-11-27 13:13:05,,,Asia/Kolkata`,
      ]);
      const failed = await get(`${base(c._id)}/recipients.csv?state=failed`).buffer(true).parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => (text += chunk));
        r.on('end', () => done(null, text));
      });
      expect(failed.headers['content-disposition']).toBe(`attachment; filename="${c._id}-recipients-failed.csv"`);
      expect((failed.body as string).split('\n').filter(Boolean)).toHaveLength(2);
    } finally {
      await collections(api.db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { timezone: zone } });
    }
    const missing = await get(`${base('cmp_000000000000000000000000')}/recipients.csv`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(envelope('not_found', 'Campaign not found.'));
  });

  it('the preview: a draft filled for the first person evaluate finds; a launched one for the first staged; the sender and audience', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 2);
    const draft = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), name: 'Preview' });
    const res = await get(`${base(draft._id)}/preview`);
    expect(res.status).toBe(200);
    const template = (await collections(api.db).templates.find({ tenant_id: ws.workspaceId, name: 'order_update' }).toArray()).find((t) => t.language === res.body.template.language)!;
    const filled = template.body.replace('{{1}}', people[0]!.name!).replace('{{2}}', 'A-1').replace('{{3}}', 'Friday');
    expect(res.body).toMatchObject({
      channel: 'whatsapp',
      audience: { kind: 'contact_ids', tags: [], list_id: null, list_name: null, contact_id_count: 2, words: '2 contacts chosen by id' },
      sender: { sender_id: expect.any(String), display_name: expect.any(String), phone: expect.any(String) },
      sender_problem: null,
      template: { name: 'order_update', body: template.body },
      sample: { name: people[0]!.name, to: people[0]!.phone, from: 'evaluation' },
      message: filled,
      purpose: null,
      script: null,
    });
    expect(res.body.message).not.toMatch(/\{\{\d\}\}/);

    const launched = await completedWith([['read', null]]);
    const staged = await get(`${base(launched._id)}/preview`);
    expect(staged.body.sample).toEqual({ name: 'Person 0', to: '+919800000000', from: 'staged' });
    expect(staged.body.message).toBe(template.body.replace('{{1}}', 'Person 0').replace('{{2}}', 'A-1').replace('{{3}}', 'Friday'));

    // A call campaign: its purpose filled for the person, no template or sender.
    const voice = await insertVoiceCampaignDraft(api.db, ws.workspaceId, { contactIds: [people[1]!._id], agentId: ws.agentId });
    const call = await get(`${base(voice._id)}/preview`);
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      channel: 'voice',
      template: null,
      sender: null,
      sender_problem: null,
      message: null,
      sample: { name: people[1]!.name, to: people[1]!.phone, from: 'evaluation' },
      purpose: `your delivery, ${people[1]!.name}`,
    });

    const missing = await get(`${base('cmp_000000000000000000000000')}/preview`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(envelope('not_found', 'Campaign not found.'));
  });
});
