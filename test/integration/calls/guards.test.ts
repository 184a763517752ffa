import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { dailyBudgetUsage, liveCallCount, reserveDailyBudget, takeLiveSlot } from '../../../src/calls/admission';
import { admitCall, CallRefusal } from '../../../src/calls/guards';
import { toApiError } from '../../../api/errors';
import { startTestApi, useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';
import { scriptCallee } from '../../support/calls';

const OK_TO = '+919811122233';

/**
 * Every POST /calls guard with its code, reason and details, and pairs of failing guards
 * proving the contract's order. A worker runs so admitted calls are placed for real; the
 * simulated callees never answer, so admitted calls stay live until hung up.
 */
describe('POST /api/v1/calls guards', () => {
  const { api } = useTestApi({ worker: true, env: { LOG_LEVEL: 'error' } });

  const ws = () => createTestWorkspace(api.db);
  const place = (w: TestWorkspace, body: Record<string, unknown>) => request(api.server).post('/api/v1/calls').set(bearer(w.key)).send(body);
  const setWorkspace = (w: TestWorkspace, set: Record<string, unknown>) => collections(api.db).workspaces.updateOne({ _id: w.workspaceId }, { $set: set });
  const quietCallee = (w: TestWorkspace, destination = OK_TO) => scriptCallee(api, w, destination, { answer: false, ring_seconds: 300 });
  async function fillLiveSlots(w: TestWorkspace) {
    for (let i = 0; i < 10; i++) expect(await takeLiveSlot(api.db, w.workspaceId, `call_fake${i}`)).toBe(true);
  }
  async function exhaustBudget(w: TestWorkspace, calls: number, minutes: number) {
    // Earlier calls of the day: `calls` of them, reserving `minutes` in all.
    for (let i = 0; i < calls; i++) {
      const share = i === 0 ? minutes - Math.floor(minutes / calls) * (calls - 1) : Math.floor(minutes / calls);
      expect((await reserveDailyBudget(api.db, w.workspaceId, share, new Date(), `call_earlier${i}`)).ok).toBe(true);
    }
  }

  describe('each guard', () => {
    it('unsupported_channel when the deployment has no voice, listing what it has', async () => {
      const whatsappOnly = await startTestApi({ env: { DEPLOYMENT_CHANNELS: 'whatsapp' } });
      try {
        const w = await createTestWorkspace(whatsappOnly.db);
        const res = await request(whatsappOnly.server).post('/api/v1/calls').set(bearer(w.key)).send({ to: OK_TO });
        expect(res.status).toBe(412);
        expect(res.body).toEqual(envelope('failed_precondition', /not available/, { reason: 'unsupported_channel', supported: ['whatsapp'] }));
      } finally {
        await whatsappOnly.close();
      }
    });

    it('voice_not_configured', async () => {
      const w = await ws();
      await setWorkspace(w, { 'capabilities.voice_configured': false });
      const res = await place(w, { to: OK_TO });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', 'Voice is not configured for this workspace.', { reason: 'voice_not_configured' }));
    });

    it('workspace_suspended is 412 at dial time (a suspension after the key checks passed)', async () => {
      const w = await ws();
      const workspace = (await collections(api.db).workspaces.findOne({ _id: w.workspaceId }))!;
      const refusal = await admitCall({ db: api.db, deploymentChannels: ['voice'] }, { ...workspace, suspended: true }, { to: OK_TO, from_number: null, agent_id: null }, 'call_x', new Date()).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(CallRefusal);
      expect(refusal).toMatchObject({ reason: 'workspace_suspended', details: {} });
      expect(toApiError(refusal)).toMatchObject({ status: 412, code: 'failed_precondition', details: { reason: 'workspace_suspended' } });
    });

    it('wallet_empty when included minutes are used and no prepaid minutes remain', async () => {
      const w = await ws();
      await setWorkspace(w, { 'plan.voice_minutes_included': 100, 'plan.voice_minutes_used': 100, 'plan.voice_credits': 0 });
      const res = await place(w, { to: OK_TO });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', /voice minutes/, { reason: 'wallet_empty' }));
    });

    it('channel_dormant when the plan lost phone numbers', async () => {
      const w = await ws();
      await setWorkspace(w, { 'plan.phone_numbers': false });
      const res = await place(w, { to: OK_TO });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', 'The plan no longer includes phone numbers.', { reason: 'channel_dormant' }));
    });

    it.each([
      ['+9198765', 'That destination number is too short.'],
      ['1234567', 'That destination number is too short.'],
      ['+999123456789', "That destination number isn't usable."],
      ['00000000000', "That destination number isn't usable."],
    ])('%s is refused with 400 and no reason', async (to, message) => {
      const res = await place(await ws(), { to });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', message, {}));
    });

    it('self_dial for one of the workspace’s own numbers', async () => {
      const w = await ws();
      const res = await place(w, { to: w.phoneNumber });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', /own numbers/, { reason: 'self_dial' }));
    });

    it.each([
      ['+449091234567', 'premium_rate'],
      ['+881612345678', 'satellite'],
      ['+870773123456', 'satellite'],
    ])('destination_blocked for %s (%s)', async (to, range) => {
      const res = await place(await ws(), { to });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(envelope('permission_denied', 'Calls to that range are blocked.', { reason: 'destination_blocked', range }));
    });

    it('country_not_allowed lists the enabled calling codes', async () => {
      const res = await place(await ws(), { to: '+447911123456' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(envelope('permission_denied', /\+44/, { reason: 'country_not_allowed', allowed_country_codes: ['91'] }));
    });

    it('call_concurrency at ten live calls', async () => {
      const w = await ws();
      await fillLiveSlots(w);
      const res = await place(w, { to: OK_TO });
      expect(res.status).toBe(429);
      expect(res.body).toEqual(envelope('rate_limited', /10 live calls/, { reason: 'call_concurrency', limit: 10 }));
    });

    it('no_phone_number when the workspace has no active number', async () => {
      const w = await ws();
      await collections(api.db).phoneNumbers.updateMany({ tenant_id: w.workspaceId }, { $set: { active: false } });
      const res = await place(w, { to: OK_TO });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', /no active phone number/, { reason: 'no_phone_number' }));
    });

    it('unknown_from_number for a number nobody has (403)', async () => {
      const res = await place(await ws(), { to: OK_TO, from_number: '+15550001111' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(envelope('permission_denied', /from_number/, { reason: 'unknown_from_number' }));
    });

    it('no_agent_deployed on the caller-ID number', async () => {
      const w = await ws();
      await collections(api.db).phoneNumbers.updateMany({ tenant_id: w.workspaceId }, { $set: { agent_id: null } });
      const res = await place(w, { to: OK_TO });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', 'No agent is deployed to the caller-ID number.', { reason: 'no_agent_deployed' }));
    });

    it('a number of another workspace is 403 “That number isn\'t in this workspace.”', async () => {
      const [w, other] = [await ws(), await ws()];
      const res = await place(w, { to: OK_TO, from_number: other.phoneNumber });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(envelope('permission_denied', "That number isn't in this workspace.", { reason: 'unknown_from_number' }));
    });

    it('agent_number_mismatch names the deployed agent', async () => {
      const w = await ws();
      const res = await place(w, { to: OK_TO, agent_id: 'bot_someone_else' });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', /different agent/, { reason: 'agent_number_mismatch', deployed_agent_id: w.agentId }));
    });

    it('daily_call_budget at 100 calls, with the day’s usage in details', async () => {
      const w = await ws();
      await exhaustBudget(w, 100, 500);
      const res = await place(w, { to: OK_TO });
      expect(res.status).toBe(429);
      expect(res.body).toEqual(
        envelope('rate_limited', /daily outbound call budget/, { reason: 'daily_call_budget', calls: 100, reserved_minutes: 500, call_limit: 100, minute_limit: 600 }),
      );
    });

    it('daily_call_budget when the agent’s maximum length no longer fits in 600 minutes', async () => {
      const w = await ws();
      await exhaustBudget(w, 3, 596); // the demo agent reserves 5 minutes
      const res = await place(w, { to: OK_TO });
      expect(res.status).toBe(429);
      expect(res.body.error.details).toEqual({ reason: 'daily_call_budget', calls: 3, reserved_minutes: 596, call_limit: 100, minute_limit: 600 });
      // A refused call gives back the live place it took.
      expect(await liveCallCount(api.db, w.workspaceId)).toBe(0);
    });
  });

  describe('order when two guards fail at once', () => {
    const cases: [string, (w: TestWorkspace) => Promise<unknown>, Record<string, unknown>, string | null][] = [
      ['voice_not_configured before suspended-wallet', async (w) => setWorkspace(w, { 'capabilities.voice_configured': false, 'plan.voice_minutes_used': 100_000, 'plan.voice_credits': 0 }), { to: OK_TO }, 'voice_not_configured'],
      ['wallet_empty before channel_dormant', async (w) => setWorkspace(w, { 'plan.voice_minutes_used': 100_000, 'plan.voice_credits': 0, 'plan.phone_numbers': false }), { to: OK_TO }, 'wallet_empty'],
      ['channel_dormant before an unusable destination', async (w) => setWorkspace(w, { 'plan.phone_numbers': false }), { to: '+999123456789' }, 'channel_dormant'],
      ['an unusable destination before concurrency', async (w) => fillLiveSlots(w), { to: '+999123456789' }, null],
      ['destination_blocked before country_not_allowed', async () => undefined, { to: '+449091234567' }, 'destination_blocked'],
      ['country_not_allowed before call_concurrency', async (w) => fillLiveSlots(w), { to: '+447911123456' }, 'country_not_allowed'],
      ['call_concurrency before no_phone_number', async (w) => { await fillLiveSlots(w); await collections(api.db).phoneNumbers.updateMany({ tenant_id: w.workspaceId }, { $set: { active: false } }); }, { to: OK_TO }, 'call_concurrency'],
      ['no_phone_number before unknown_from_number', async (w) => collections(api.db).phoneNumbers.updateMany({ tenant_id: w.workspaceId }, { $set: { active: false } }), { to: OK_TO, from_number: '+15550001111' }, 'no_phone_number'],
      ['unknown_from_number before agent_number_mismatch', async () => undefined, { to: OK_TO, from_number: '+15550001111', agent_id: 'bot_other' }, 'unknown_from_number'],
      ['agent_number_mismatch before daily_call_budget', async (w) => exhaustBudget(w, 100, 0), { to: OK_TO, agent_id: 'bot_other' }, 'agent_number_mismatch'],
    ];
    it.each(cases)('%s', async (_name, arrange, body, reason) => {
      const w = await ws();
      await arrange(w);
      const res = await place(w, body);
      expect(res.body.error.details.reason ?? null).toBe(reason);
      if (reason === null) expect(res.status).toBe(400);
    });

    it('no_agent_deployed before the other-workspace refusal (another workspace’s number without an agent)', async () => {
      const [w, other] = [await ws(), await ws()];
      await collections(api.db).phoneNumbers.updateMany({ tenant_id: other.workspaceId }, { $set: { agent_id: null } });
      const res = await place(w, { to: OK_TO, from_number: other.phoneNumber });
      expect(res.status).toBe(412);
      expect(res.body.error.details.reason).toBe('no_agent_deployed');
    });

    it('the other-workspace refusal before agent_number_mismatch', async () => {
      const [w, other] = [await ws(), await ws()];
      const res = await place(w, { to: OK_TO, from_number: other.phoneNumber, agent_id: 'bot_other' });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe("That number isn't in this workspace.");
    });
  });

  describe('under parallel requests', () => {
    it('admits exactly ten live calls out of fifteen at once', async () => {
      const w = await ws();
      await quietCallee(w);
      const answers = await Promise.all(Array.from({ length: 15 }, () => place(w, { to: OK_TO })));
      const statuses = answers.map((r) => r.status).sort((a, b) => a - b);
      expect(answers.filter((r) => r.status !== 201 && r.status !== 429).map((r) => r.body)).toEqual([]);
      expect(statuses.filter((s) => s === 201)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(5);
      for (const r of answers.filter((a) => a.status === 429)) expect(r.body.error.details.reason).toBe('call_concurrency');
      // Hanging up frees the places.
      for (const r of answers.filter((a) => a.status === 201)) {
        const hung = await request(api.server).post(`/api/v1/calls/${r.body.call_id}/hangup`).set(bearer(w.key));
        expect(hung.body).toEqual({ call_id: r.body.call_id, ended: true });
      }
      const deadline = Date.now() + 60_000;
      while ((await liveCallCount(api.db, w.workspaceId)) > 0) {
        if (Date.now() > deadline) throw new Error('live places were not given back');
        await new Promise((r) => setTimeout(r, 200));
      }
    });

    it('never admits past the daily call budget', async () => {
      const w = await ws();
      await quietCallee(w);
      await exhaustBudget(w, 96, 0);
      const answers = await Promise.all(Array.from({ length: 8 }, () => place(w, { to: OK_TO })));
      expect(answers.filter((r) => r.status === 201)).toHaveLength(4);
      expect(answers.filter((r) => r.status === 429).map((r) => r.body.error.details.reason)).toEqual(Array(4).fill('daily_call_budget'));
      const day = new Date().toISOString().slice(0, 10);
      expect(await dailyBudgetUsage(api.db, w.workspaceId, day)).toEqual({ calls: 100, minutes: 20 });
      for (const r of answers.filter((a) => a.status === 201)) await request(api.server).post(`/api/v1/calls/${r.body.call_id}/hangup`).set(bearer(w.key));
    });
  });

  describe('round trips (issue 28)', () => {
    /** The collections each `find` of `body` read, in order. */
    const finds = async (body: () => Promise<unknown>): Promise<string[]> => {
      const seen: string[] = [];
      const listener = (e: CommandStartedEvent) => {
        if (e.commandName === 'find') seen.push(String(e.command.find));
      };
      api.mongo.on('commandStarted', listener);
      try {
        await body();
      } finally {
        api.mongo.off('commandStarted', listener);
      }
      return seen;
    };

    it('an admitted call reads the workspace’s numbers once and the day’s budget past its head in one read', async () => {
      const w = await ws();
      await quietCallee(w);
      await exhaustBudget(w, 2, 10);
      const workspace = (await collections(api.db).workspaces.findOne({ _id: w.workspaceId }))!;
      let admitted: Awaited<ReturnType<typeof admitCall>> | null = null;
      const read = await finds(async () => {
        admitted = await admitCall({ db: api.db, deploymentChannels: ['voice'] }, workspace, { to: OK_TO, from_number: null, agent_id: null }, 'call_roundtrips', new Date());
      });
      expect(admitted).toMatchObject({ callId: 'call_roundtrips', to: OK_TO, number: { _id: w.phoneNumber.replace(/\D/g, '') }, budgetReserved: true });
      expect(read.filter((c) => c === 'phone_numbers')).toHaveLength(1);
      expect(read.filter((c) => c === 'call_budget_entries')).toHaveLength(1);
      const day = new Date().toISOString().slice(0, 10);
      expect(await dailyBudgetUsage(api.db, w.workspaceId, day)).toEqual({ calls: 3, minutes: 15 });
    });
  });
});
