import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { billCallMinutes } from '../../../src/calls/billing';
import { callCollections } from '../../../src/calls/callStore';
import { tallyCallEnd } from '../../../src/calls/callTally';
import { collections } from '../../../src/db/collections';
import { LeaseTimeoutError } from '../../../src/db/leaseLock';
import { connectMongo } from '../../../src/db/mongo';
import { startTestApi, type TestApi } from '../../support/app';
import { testConfig } from '../../support/env';
import { bearer } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * A call's minutes are billed once even when the first try cannot change the plan: ten calls
 * ending together (a media process killed) queue on the workspace's plan lease, and under load
 * one waits out its budget (`npm run cluster:kill` lost 5 of 40 minutes so: the retry found the
 * call's claim and billed nothing). src/calls/billing.ts.
 */
describe('call minutes: a finish whose plan change failed bills on its retry, once', () => {
  let api: TestApi;
  let ws: TestWorkspace;

  beforeAll(async () => {
    api = await startTestApi();
    ws = await createTestWorkspace(api.db);
  });
  afterAll(async () => {
    await api?.close();
  });

  const used = async () => (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.plan.voice_minutes_used;

  it('the plan lease held elsewhere: the first try fails, the retry bills 3 minutes, a third try bills nothing', async () => {
    const before = await used();
    const call = { _id: `call_billing_retry_${Date.now()}`, tenant_id: ws.workspaceId };
    // Another process holds the plan's lease past this one's wait (as a dead holder's would).
    const lease = `workspace-plan:${ws.workspaceId}`;
    await api.db.collection<{ _id: string; token: string; expires_at: Date }>('leases').insertOne({ _id: lease, token: 'another process', expires_at: new Date(Date.now() + 60_000) });
    await expect(billCallMinutes(api.db, call, 150)).rejects.toBeInstanceOf(LeaseTimeoutError);
    expect(await used()).toBe(before);

    await api.db.collection<{ _id: string }>('leases').deleteOne({ _id: lease });
    await billCallMinutes(api.db, call, 150);
    expect(await used()).toBe(before + 3);
    await billCallMinutes(api.db, call, 150);
    expect(await used()).toBe(before + 3);
    expect(await callCollections(api.db).effects.findOne({ _id: `${call._id}|billed` })).toEqual({ _id: `${call._id}|billed`, at: expect.any(Date) });
  });

  it('a call running past the credits left takes what is left: credits stop at 0, every minute counts in minutes used', async () => {
    await collections(api.db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { 'plan.voice_minutes_included': 10, 'plan.voice_minutes_used': 9, 'plan.voice_credits': 1 } });
    await billCallMinutes(api.db, { _id: `call_billing_overrun_${Date.now()}`, tenant_id: ws.workspaceId }, 4 * 60);
    const plan = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.plan;
    expect({ used: plan.voice_minutes_used, credits: plan.voice_credits }).toEqual({ used: 13, credits: 0 });
    const shown = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}`).set(bearer(api.config.CONSOLE_TOKEN!));
    expect(shown.status).toBe(200);
    expect(shown.body.plan.voice_credits).toBe(0);
  });

  it('a finish that died after the plan write but before clearing its claim: the retry bills nothing more', async () => {
    const before = await used();
    const call = { _id: `call_billing_died_${Date.now()}`, tenant_id: ws.workspaceId };
    await billCallMinutes(api.db, call, 61);
    expect(await used()).toBe(before + 2);
    // The state such a death leaves: the plan changed (with the call's id), the claim still pending.
    await callCollections(api.db).effects.updateOne({ _id: `${call._id}|billed` }, { $set: { pending: true } });
    await billCallMinutes(api.db, call, 61);
    expect(await used()).toBe(before + 2);
    expect(await callCollections(api.db).effects.findOne({ _id: `${call._id}|billed` })).toEqual({ _id: `${call._id}|billed`, at: expect.any(Date) });
  });

  it('a first bill reads its own claim only under the lease, and the tally takes the time zone from the workspace it read (issue 36 §3)', async () => {
    // A second client on the same database, watching its finds.
    const watched = await connectMongo({ MONGODB_URL: testConfig().MONGODB_URL, MONGODB_DB: api.db.databaseName }, 'test-billing-reads', { monitorCommands: true });
    try {
      const finds: string[] = [];
      watched.client.on('commandStarted', (e: CommandStartedEvent) => {
        if (e.commandName === 'find') finds.push(String(e.command.find));
      });
      const before = await used();
      const call = { _id: `call_billing_reads_${Date.now()}`, tenant_id: ws.workspaceId };
      const workspace = await billCallMinutes(watched.db, call, 61);
      expect(await used()).toBe(before + 2);
      expect(workspace).toMatchObject({ _id: ws.workspaceId });
      expect(finds).toEqual(['call_effects', 'workspaces']);

      finds.length = 0;
      const endedAt = new Date();
      await tallyCallEnd(watched.db, call, { status: 'completed', outcome: 'agent_hangup', answered: true, durationSeconds: 61, endedAt }, { workspace });
      expect(finds.filter((f) => f === 'workspaces')).toEqual([]);
    } finally {
      await watched.client.close();
    }
  });
});
