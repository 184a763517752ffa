import request from 'supertest';
import { callCollections } from '../../../src/calls/callStore';
import { outcomeCollections } from '../../../src/campaigns/voice/outcomes/chunks';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { collections } from '../../../src/db/collections';
import { waitFor } from '../../../src/local/net';
import { startTestApi, type TestApi } from '../../support/app';
import { VOICE_TEST_CAPTURE, insertCampaignDraft, insertContacts, scriptCallee, zoneOpenAt } from '../../support/campaigns';
import { csvRecords } from '../../support/csv';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const DOCS = 'https://docs.orchestrator.dev/campaigns#';

/** The capture as a request sends it. */
const CAPTURE_REQUEST = {
  goal: VOICE_TEST_CAPTURE.goal,
  fields: VOICE_TEST_CAPTURE.fields.map((f) => ({ key: f.key, label: f.label, type: f.type, options: f.options, required: f.required, display: f.display })),
  success: { field: 'address_ok', equals: 'yes' },
};

/**
 * Call campaigns over HTTP with a real worker and the scripted simulated callee: create,
 * evaluate and launch with their exact refusals, then a campaign run to the end and its
 * recipients, outcome report and CSV.
 */
describe('call campaigns (voice_batch) over HTTP', () => {
  let api: TestApi;
  let ws: TestWorkspace;

  beforeAll(async () => {
    api = await startTestApi({ worker: true });
    ws = await createTestWorkspace(api.db);
  });
  afterAll(async () => {
    await api?.close();
  });

  const keys = new Map<string, { key: string; uses: number }>();
  /** A fresh key every 100 requests per workspace: the per-key limit must not decide a test. */
  async function auth(as: TestWorkspace = ws) {
    let k = keys.get(as.workspaceId);
    if (!k || ++k.uses > 100) {
      k = { key: (await as.addKey(['campaigns:read', 'campaigns:write'])).key, uses: 1 };
      keys.set(as.workspaceId, k);
    }
    return bearer(k.key);
  }
  const create = async (body: Record<string, unknown>, as?: TestWorkspace) => request(api.server).post('/api/v1/campaigns').set(await auth(as)).send(body);
  const evaluate = async (id: string, as?: TestWorkspace) => request(api.server).post(`/api/v1/campaigns/${id}/evaluate`).set(await auth(as));
  const launch = async (id: string, as?: TestWorkspace) => request(api.server).post(`/api/v1/campaigns/${id}/launch`).set(await auth(as)).send({ expected_version: 1 });
  const get = async (path: string, as?: TestWorkspace) => request(api.server).get(`/api/v1/campaigns/${path}`).set(await auth(as));

  let n = 0;
  async function contact(overrides: { name?: string | null; phone?: string; email?: string | null } = {}, workspaceId = ws.workspaceId) {
    n += 1;
    const phone = overrides.phone ?? `+9196${String(Date.now() % 10_000).padStart(4, '0')}${String(n).padStart(4, '0')}`;
    const { contact: doc } = await matchOrCreateContact(
      api.db,
      { _id: workspaceId, country: 'IN' },
      { name: overrides.name === undefined ? `Person ${n}` : overrides.name, phone, email: overrides.email === undefined ? `p${n}.${Date.now()}@example.com` : overrides.email, tags: [] },
      new Date(),
    );
    return doc;
  }

  const voice = (contactIds: string[], extra: Record<string, unknown> = {}, as: TestWorkspace = ws) => ({
    name: 'Delivery check',
    channel: 'voice',
    agent_id: as.agentId,
    audience: { contact_ids: contactIds },
    purpose: 'your delivery, {{name}}',
    capture: CAPTURE_REQUEST,
    schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 },
    ...extra,
  });

  describe('POST /campaigns (voice)', () => {
    it('answers 201 with a voice_batch draft, its capture echoed and call progress at zero', async () => {
      const res = await create(voice([]));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ channel: 'voice', type: 'voice_batch', status: 'draft', version: 1, recipients: 0 });
      expect(res.body.capture.fields.map((f: { key: string }) => f.key)).toEqual(['address_ok', 'slot', 'notes']);
      expect(res.body.calls).toEqual({ dialled: 0, answered: 0, conversation: 0, completed: 0, call_backs: 0, live: 0 });
    });

    it.each([
      ['purpose', { purpose: 'About your {{plan}}' }, 'plan'],
      ['script', { script: 'Ask {{contact.city}} first' }, 'contact.city'],
    ])('refuses a %s variable the audience cannot fill: 400 unknown_variable with the field', async (where, extra, field) => {
      const res = await create(voice([], extra));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', `No contact can fill {{${field}}}; use {{name}}, {{phone}}, {{email}}, {{contact.name}}, {{contact.phone}}, {{contact.email}}, {{all}}.`, {
          reason: 'unknown_variable',
          field,
          loc: ['body', where],
        }),
      );
    });

    it('refuses a voice campaign without agent_id, and a template on one: 400 invalid_argument', async () => {
      const noAgent = await create(voice([], { agent_id: null }));
      expect(noAgent.body).toEqual(envelope('invalid_argument', 'A voice campaign needs an agent_id.', { reason: 'invalid_argument', field: 'agent_id' }));
      const template = await create(voice([], { template: { name: 'order_update' } }));
      expect(template.status).toBe(400);
      expect(template.body).toEqual(envelope('invalid_argument', 'template applies to WhatsApp campaigns only.', { reason: 'invalid_argument', field: 'template' }));
    });

    it.each([
      ['purpose', { purpose: 'x'.repeat(501) }],
      ['script', { script: 'x'.repeat(3_001) }],
      ['capture', { capture: { goal: 'x', fields: [{ label: 'Pick', type: 'choice', options: ['one'] }] } }],
    ])('refuses a bad %s with 400 Request validation failed.', async (field, extra) => {
      const res = await create(voice([], extra));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_argument', message: 'Request validation failed.' });
      expect(res.body.error.details.errors.map((e: { loc: string[] }) => e.loc.slice(0, 2).join('.'))).toContain(`body.${field}`);
    });

    it('schedule.recipient_time_zone (beyond the contract): stored and shown with the schedule on a call campaign, off by default; 400 on WhatsApp; a boolean', async () => {
      const consoleAuth = bearer(api.config.CONSOLE_TOKEN!);
      const schedule = async (id: string) => (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}`).set(consoleAuth)).body.schedule;
      const on = await create(voice([], { schedule: { timezone: 'Asia/Kolkata', recipient_time_zone: true } }));
      expect(on.status).toBe(201);
      expect(await schedule(on.body.campaign_id)).toMatchObject({ timezone: 'Asia/Kolkata', recipient_time_zone: true });
      const off = await create(voice([]));
      expect(await schedule(off.body.campaign_id)).toMatchObject({ recipient_time_zone: false });

      const whatsapp = await create({ name: 'Own zones', audience: { contact_ids: [] }, template: { name: 'order_update', variables: ['a', 'b', 'c'] }, schedule: { recipient_time_zone: true } });
      expect(whatsapp.status).toBe(400);
      expect(whatsapp.body).toEqual(envelope('invalid_argument', 'schedule.recipient_time_zone applies to voice campaigns only.', { reason: 'invalid_argument', field: 'schedule.recipient_time_zone' }));
      const whatsappOff = await create({ name: 'Own zones off', audience: { contact_ids: [] }, template: { name: 'order_update', variables: ['a', 'b', 'c'] }, schedule: { recipient_time_zone: false } });
      expect(whatsappOff.status).toBe(201);
      expect(await schedule(whatsappOff.body.campaign_id)).not.toHaveProperty('recipient_time_zone');

      const notBoolean = await create(voice([], { schedule: { recipient_time_zone: 'yes' } }));
      expect(notBoolean.status).toBe(400);
      expect(notBoolean.body.error).toMatchObject({ code: 'invalid_argument', message: 'Request validation failed.' });
      expect(notBoolean.body.error.details.errors.map((e: { loc: string[] }) => e.loc)).toContainEqual(['body', 'schedule', 'recipient_time_zone']);
    });
  });

  describe('POST …/evaluate and …/launch (voice checks)', () => {
    it('fills purpose and script per person ({{name}}, {{contact.phone}}, {{all}}); excludes a number whose country is not enabled and a person a variable has no value for', async () => {
      const ok = await contact({ name: 'Asha', email: 'asha@example.com' });
      const abroad = await contact({ phone: '+14155550123' });
      const noEmail = await contact({ email: null });
      const created = await create(voice([ok._id, abroad._id, noEmail._id], { purpose: 'your delivery, {{name}}', script: 'Reach {{contact.phone}} or {{email}}.\n{{all}}' }));
      const res = await evaluate(created.body.campaign_id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ eligible: 1, total_rows: 3, excluded: { country_not_allowed: 1, missing_variable: 1 } });
      expect(res.body.invalid_rows).toEqual([
        { reason: 'country_not_allowed', contact_id: abroad._id },
        { reason: 'missing_variable', contact_id: noEmail._id, field: 'contact.email' },
      ]);
      expect(res.body.sample).toEqual([
        {
          to: ok.phone,
          name: 'Asha',
          variables: { purpose: 'your delivery, Asha', script: `Reach ${ok.phone} or asha@example.com.\nName: Asha\nPhone: ${ok.phone}\nEmail: asha@example.com` },
        },
      ]);
      expect(res.body.findings.map((f: { code: string; severity: string }) => [f.code, f.severity])).toEqual([
        ['missing_variable', 'warn'],
        ['country_not_allowed', 'warn'],
      ]);
    });

    it('blocks an agent not deployed to an active number: evaluate finds it, launch answers 412 no_agent_deployed', async () => {
      const c = await contact();
      const created = await create(voice([c._id], { agent_id: 'bot_nobody' }));
      const finding = {
        code: 'no_agent_deployed',
        severity: 'block',
        message: 'Agent bot_nobody is not deployed to an active number of this workspace.',
        fix: 'Deploy the agent to an active number in the console, or create the campaign with the agent that is deployed.',
        docs: `${DOCS}no-agent-deployed`,
        count: 1,
      };
      expect((await evaluate(created.body.campaign_id)).body.findings).toEqual([finding]);
      const res = await launch(created.body.campaign_id);
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', finding.message, { reason: 'no_agent_deployed', docs: finding.docs, fix: finding.fix, findings: [finding] }));
    });

    it.each([
      [
        'voice not configured',
        { 'capabilities.voice_configured': false },
        'voice_not_configured',
        'Voice is not configured for this workspace.',
        'Configure voice for the workspace in the console.',
      ],
      ['no active number', null, 'no_phone_number', 'This workspace has no active phone number to call from.', 'Activate a phone number in the console.'],
    ])('blocks a launch when %s: 412 with the finding', async (_case, set, reason, message, fix) => {
      const other = await createTestWorkspace(api.db);
      if (set) await collections(api.db).workspaces.updateOne({ _id: other.workspaceId }, { $set: set });
      else await collections(api.db).phoneNumbers.updateMany({ tenant_id: other.workspaceId }, { $set: { active: false } });
      const c = await contact({}, other.workspaceId);
      const created = await create(voice([c._id], {}, other), other);
      const res = await launch(created.body.campaign_id, other);
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', message, { reason, docs: `${DOCS}${reason.replace(/_/g, '-')}`, fix, findings: [expect.objectContaining({ code: reason, severity: 'block', count: 1 })] }));
    });

    it.each([
      ['the plan lacks phone numbers', { 'plan.phone_numbers': false }, 'channel_dormant', 'The plan no longer includes phone numbers.', 'Add phone numbers to the plan.'],
      [
        'the voice minutes are used up',
        { 'plan.voice_minutes_used': 100_000, 'plan.voice_credits': 0 },
        'allowance_exhausted',
        "The plan's voice minutes are used up and there are no prepaid minutes.",
        'Buy prepaid minutes or wait for the monthly allowance.',
      ],
    ])('refuses a launch when %s: 412 %s', async (_case, set, reason, message, fix) => {
      const other = await createTestWorkspace(api.db);
      await collections(api.db).workspaces.updateOne({ _id: other.workspaceId }, { $set: set });
      const c = await contact({}, other.workspaceId);
      const created = await create(voice([c._id], {}, other), other);
      const res = await launch(created.body.campaign_id, other);
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', message, { reason, docs: `${DOCS}${reason.replace(/_/g, '-')}`, fix }));
    });
  });

  describe('a campaign run to the end: GET …/recipients, …/outcomes, …/outcomes.csv', () => {
    let campaignId: string;
    let people: Awaited<ReturnType<typeof contact>>[];

    beforeAll(async () => {
      people = [await contact({ name: '=SUM(A1:A9)' }), await contact({ name: 'Zoë "Z", Jr.' }), await contact()];
      const fast = { ring_seconds: 0, seconds_per_turn: 0.05 };
      // Completes, with a notes answer a spreadsheet would run; drops after the first answer; never answers.
      await scriptCallee(api.db, ws.workspaceId, people[0]!.phone!, { ...fast, answers: { notes: '@SUM(1+1)' } });
      const dropped = [
        { role: 'model' as const, text: 'Hello, this is the virtual assistant of Demo. Is now a good time?' },
        { role: 'user' as const, text: 'Yes, now is fine.' },
        { role: 'model' as const, text: 'Is the delivery address correct?' },
        { role: 'user' as const, text: 'Yes.' },
      ];
      await scriptCallee(api.db, ws.workspaceId, people[1]!.phone!, { ...fast, turns: dropped, end: 'caller_hangup' });
      await scriptCallee(api.db, ws.workspaceId, people[2]!.phone!, { answer: false, ring_seconds: 0, network_outcome: 'busy' });
      const created = await create(voice(people.map((p) => p._id)));
      campaignId = created.body.campaign_id;
      expect((await launch(campaignId)).body).toMatchObject({ status: 'running', recipients: 3 });
      // Three calls through their workflows: generous on a loaded machine (60 s was the whole budget before).
      await waitFor('the campaign completed', async () => (await get(campaignId)).body.status === 'completed', 150_000, 500);
    }, 180_000);

    it('the Campaign shows the call progress; its calls are calls (GET /calls/{id}) carrying the person’s purpose', async () => {
      const res = await get(campaignId);
      expect(res.body).toMatchObject({ status: 'completed', recipients: 3, sent: 3, failed: 0, skipped: 0 });
      expect(res.body.calls).toEqual({ dialled: 3, answered: 2, conversation: 2, completed: 1, call_backs: 0, live: 0 });
      const recipients = await get(`${campaignId}/recipients`);
      const callId = recipients.body.items[0].calls[0].call_id;
      const call = await request(api.server).get(`/api/v1/calls/${callId}`).set(bearer(ws.key));
      expect(call.status).toBe(200);
      expect(call.body).toMatchObject({ call_id: callId, agent_id: ws.agentId, status: 'completed', result: { state: 'ready', disposition: 'completed' } });
      expect((await callCollections(api.db).calls.findOne({ _id: callId }))!.purpose).toBe('your delivery, =SUM(A1:A9)');
    });

    it('GET …/recipients shows each person’s merged outcome with evidence', async () => {
      const res = await get(`${campaignId}/recipients`);
      expect(res.status).toBe(200);
      const [a, b, c] = res.body.items;
      expect(a).toMatchObject({ position: 0, state: 'called', reason: null, calls: [{ kind: 'first', answered: true, disposition: 'completed' }] });
      expect(a.outcome).toMatchObject({
        disposition: 'completed',
        success: true,
        fields: { address_ok: true, slot: 'Morning', notes: '@SUM(1+1)' },
        captured: 3,
        expected: 3,
        missing_required: [],
      });
      expect(a.outcome.evidence.slot).toEqual({ quote: 'Morning.', turn: expect.any(Number), call_id: a.calls[0].call_id });
      expect(b.outcome).toMatchObject({ disposition: 'hung_up_early', fields: { address_ok: true }, missing_required: ['slot'] });
      expect(c).toMatchObject({ state: 'called', calls: [{ answered: false, disposition: 'unanswered' }], outcome: { disposition: 'unanswered', fields: {} } });
      expect(res.body.next_cursor).toBeNull();
    });

    it('GET …/outcomes: totals, funnel, dispositions, each field by its display, calls by hour', async () => {
      const res = await get(`${campaignId}/outcomes`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        campaign_id: campaignId,
        status: 'completed',
        totals: { recipients: 3, finished: 3, outstanding: 0, failed: 0, skipped: 0, calls: 3, call_backs: 0, answered: 2, completed: 1, success: 2 },
        funnel: [
          { stage: 'staged', count: 3, rate: 1 },
          { stage: 'dialled', count: 3, rate: 1 },
          { stage: 'answered', count: 2, rate: 0.6667 },
          { stage: 'conversation', count: 2, rate: 0.6667 },
          { stage: 'completed', count: 1, rate: 0.3333 },
        ],
        dispositions: { completed: 1, partial: 0, callback_requested: 0, not_interested: 0, wrong_person: 0, hung_up_early: 1, no_conversation: 0, unanswered: 1 },
      });
      expect(res.body.fields).toEqual([
        { key: 'address_ok', label: 'Is the delivery address correct', type: 'yes_no', display: 'donut', answered: 2, summary: { kind: 'counts', counts: { yes: 2, no: 0 } } },
        { key: 'slot', label: 'Preferred slot', type: 'choice', display: 'bars', answered: 1, summary: { kind: 'counts', counts: { Morning: 1, Evening: 0 } } },
        { key: 'notes', label: 'Any notes', type: 'text', display: 'list', answered: 1, summary: { kind: 'samples', samples: [{ position: 0, value: '@SUM(1+1)' }] } },
      ]);
      const timeline = res.body.timeline as { calls: number; answered: number; completed: number }[];
      expect(timeline.reduce((t, h) => ({ calls: t.calls + h.calls, answered: t.answered + h.answered, completed: t.completed + h.completed }), { calls: 0, answered: 0, completed: 0 })).toEqual({ calls: 3, answered: 2, completed: 1 });
    });

    it('GET …/outcomes.csv: UTF-8 with a BOM, a row per person, a column per field key and the evidence, quoted, formulas defused', async () => {
      const res = await request(api.server)
        .get(`/api/v1/campaigns/${campaignId}/outcomes.csv`)
        .set(await auth())
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      const raw = res.body as Buffer;
      expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const text = raw.subarray(3).toString('utf8');
      expect(text).toContain('"Zoë ""Z"", Jr."');
      const { header, records } = csvRecords(text);
      expect(header).toEqual([
        'position', 'contact_id', 'name', 'to', 'state', 'disposition', 'goal_met', 'success', 'sentiment', 'next_step', 'summary', 'calls', 'call_ids',
        'address_ok', 'slot', 'notes',
        'evidence:address_ok', 'evidence_turn:address_ok', 'evidence:slot', 'evidence_turn:slot', 'evidence:notes', 'evidence_turn:notes',
      ]);
      expect(records).toHaveLength(3);
      expect(records[0]).toMatchObject({ position: '0', contact_id: people[0]!._id, name: "'=SUM(A1:A9)", to: people[0]!.phone!, state: 'called', disposition: 'completed', success: 'yes', calls: '1', address_ok: 'yes', slot: 'Morning', notes: "'@SUM(1+1)", 'evidence:slot': 'Morning.', 'evidence:notes': "'@SUM(1+1)" });
      expect(records[0]!['evidence_turn:slot']).toMatch(/^\d+$/);
      expect(records[1]).toMatchObject({ name: 'Zoë "Z", Jr.', disposition: 'hung_up_early', address_ok: 'yes', slot: '', notes: '' });
      expect(records[2]).toMatchObject({ disposition: 'unanswered', address_ok: '', calls: '1' });
    });

    it('the CSV needs campaigns:write; both reports are 404 for another workspace', async () => {
      const readOnly = await ws.addKey(['campaigns:read']);
      const res = await request(api.server).get(`/api/v1/campaigns/${campaignId}/outcomes.csv`).set(bearer(readOnly.key));
      expect(res.status).toBe(403);
      expect(res.body.error.details).toEqual({ reason: 'missing_scope', required_scope: 'campaigns:write' });
      const stranger = await createTestWorkspace(api.db);
      for (const path of ['outcomes', 'outcomes.csv']) {
        const other = await get(`${campaignId}/${path}`, stranger);
        expect(other.status).toBe(404);
        expect(other.body).toEqual(envelope('not_found', 'Campaign not found.'));
      }
    });
    it('the console serves the same report, CSV and call progress (its session callers hold no API key)', async () => {
      const consoleAuth = bearer(api.config.CONSOLE_TOKEN!);
      const base = `/console/v1/workspaces/${ws.workspaceId}/campaigns/${campaignId}`;
      const shown = await request(api.server).get(base).set(consoleAuth);
      expect(shown.status).toBe(200);
      expect(shown.body.calls).toEqual({ dialled: 3, answered: 2, conversation: 2, completed: 1, call_backs: 0, live: 0 });
      const [publicReport, consoleReport] = await Promise.all([get(`${campaignId}/outcomes`), request(api.server).get(`${base}/outcomes`).set(consoleAuth)]);
      expect(consoleReport.status).toBe(200);
      expect({ ...consoleReport.body, generated_at: null }).toEqual({ ...publicReport.body, generated_at: null });
      const csv = await request(api.server).get(`${base}/outcomes.csv`).set(consoleAuth).buffer(true).parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });
      expect(csv.status).toBe(200);
      expect(csvRecords((csv.body as Buffer).subarray(3).toString('utf8')).records).toHaveLength(3);
    });

    const csvText = async () => {
      const res = await request(api.server).get(`/api/v1/campaigns/${campaignId}/outcomes.csv`).set(await auth()).buffer(true).parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });
      expect(res.status).toBe(200);
      return (res.body as Buffer).toString('utf8');
    };

    it('a console re-read that changes a campaign call’s result updates the person’s merged outcome, the progress, the report and the CSV', async () => {
      const consoleAuth = bearer(api.config.CONSOLE_TOKEN!);
      const dropped = (await get(`${campaignId}/recipients`)).body.items[1];
      const callId: string = dropped.calls[0].call_id;
      // The call's transcript corrected (its end had been lost): read again, every question is answered.
      const { calls } = callCollections(api.db);
      const stored = (await calls.findOne({ _id: callId }))!;
      const last = stored.transcript!.at(-1)!.at_seconds;
      const rest = [
        { role: 'model' as const, text: 'Preferred slot?' },
        { role: 'user' as const, text: 'Evening.' },
        { role: 'model' as const, text: 'Any notes?' },
        { role: 'user' as const, text: 'Ring first.' },
      ].map((t, i) => ({ ...t, at_seconds: last + i + 1 }));
      await calls.updateOne({ _id: callId }, { $set: { transcript: [...stored.transcript!, ...rest] } });
      const reread = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/calls/${callId}/reread`).set(consoleAuth);
      expect(reread.status).toBe(202);
      // The progress is written last (after the person, their outcome chunk and the tallies).
      // The re-read goes through a workflow: a deadline for a loaded machine, not 30 s.
      const shown = await waitFor(
        'the re-read counted',
        async () => {
          const body = (await get(campaignId)).body;
          return body.calls.completed === 2 && body;
        },
        90_000,
        500,
      );
      const person = (await get(`${campaignId}/recipients`)).body.items[1];
      expect(person).toMatchObject({ state: 'called', calls: [{ call_id: callId, kind: 'first', disposition: 'completed' }] });
      expect(person.outcome).toMatchObject({ disposition: 'completed', fields: { address_ok: true, slot: 'Evening', notes: 'Ring first.' }, missing_required: [], call_id: callId });
      expect(shown.calls).toEqual({ dialled: 3, answered: 2, conversation: 2, completed: 2, call_backs: 0, live: 0 });
      const report = (await get(`${campaignId}/outcomes`)).body;
      expect(report.totals).toEqual({ recipients: 3, finished: 3, outstanding: 0, failed: 0, skipped: 0, calls: 3, call_backs: 0, answered: 2, completed: 2, success: 2 });
      expect(report.dispositions).toMatchObject({ completed: 2, hung_up_early: 0, unanswered: 1 });
      expect(report.fields).toEqual([
        { key: 'address_ok', label: 'Is the delivery address correct', type: 'yes_no', display: 'donut', answered: 2, summary: { kind: 'counts', counts: { yes: 2, no: 0 } } },
        { key: 'slot', label: 'Preferred slot', type: 'choice', display: 'bars', answered: 2, summary: { kind: 'counts', counts: { Morning: 1, Evening: 1 } } },
        { key: 'notes', label: 'Any notes', type: 'text', display: 'list', answered: 2, summary: { kind: 'samples', samples: [{ position: 0, value: '@SUM(1+1)' }, { position: 1, value: 'Ring first.' }] } },
      ]);
      const { records } = csvRecords((await csvText()).slice(1));
      expect(records[1]).toMatchObject({ position: '1', disposition: 'completed', address_ok: 'yes', slot: 'Evening', notes: 'Ring first.', 'evidence:slot': 'Evening.' });
    }, 120_000);

    it('a campaign counted before outcome chunks were kept (no tallies, no chunks) answers the same report and CSV, read person by person', async () => {
      const report = (await get(`${campaignId}/outcomes`)).body;
      const csv = await csvText();
      const { chunks, tallies } = outcomeCollections(api.db);
      expect(await tallies.findOne({ _id: campaignId })).toMatchObject({ complete: true });
      expect(await chunks.findOne({ _id: `${campaignId}:0` })).toMatchObject({ parts: [{ part: 0, rows: 3 }] });
      await tallies.deleteOne({ _id: campaignId });
      await chunks.deleteOne({ _id: `${campaignId}:0` });
      expect({ ...(await get(`${campaignId}/outcomes`)).body, generated_at: null }).toEqual({ ...report, generated_at: null });
      expect(await csvText()).toBe(csv);
    });
  });

  it('both outcome routes answer 412 not_a_call_campaign on a WhatsApp campaign', async () => {
    const [person] = await insertContacts(api.db, ws.workspaceId, 1);
    const whatsapp = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: [person!._id] });
    for (const path of ['outcomes', 'outcomes.csv']) {
      const res = await get(`${whatsapp._id}/${path}`);
      expect(res.status).toBe(412);
      expect(res.body).toEqual(
        envelope('failed_precondition', 'This is a WhatsApp campaign; outcome reports are for call campaigns.', {
          reason: 'not_a_call_campaign',
          docs: `${DOCS}not-a-call-campaign`,
          fix: 'Read GET /campaigns/{campaign_id}/recipients for a WhatsApp campaign’s per-person states.',
        }),
      );
    }
  });
});
