import { WorkflowNotFoundError } from '@temporalio/client';
import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { simulatedLinkPaymentWorkflowId } from '../../../src/dues/contracts';
import { duesCollections, type DueDoc } from '../../../src/dues/store';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { CONSOLE, eventsOf, eventually } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * The simulated payment-link gateway scripted from the console
 * (`/console/v1/workspaces/{id}/simulator/payment-links`): paid after N minutes, never paid,
 * link creation refused, each seen through a real chase on a worker.
 */
/** A chase's steps go through its workflow on the worker: a deadline for a loaded machine, past `eventually`'s 20 s. */
const CHASE_DEADLINE_MS = 60_000;

describe('the payment-link simulator scripted from the console', () => {
  const { api } = useTestApi({ worker: true });
  const scriptPath = (ws: TestWorkspace) => `/console/v1/workspaces/${ws.workspaceId}/simulator/payment-links`;
  let n = 0;

  /**
   * A workspace in payment-link mode whose zone has it about noon now, so a due raised today
   * gets its reminder (and its link) at once, inside the 09:00–21:00 window.
   */
  async function linkWorkspace(script: Record<string, unknown> | null): Promise<TestWorkspace> {
    const ws = await createTestWorkspace(api.db);
    const eastOfUtc = 12 - new Date().getUTCHours();
    const timezone = eastOfUtc === 0 ? 'Etc/GMT' : `Etc/GMT${eastOfUtc > 0 ? '-' : '+'}${Math.abs(eastOfUtc)}`;
    await collections(api.db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { timezone, installed_apps: ['dues'] } });
    const settings = await request(api.server)
      .put(`/console/v1/workspaces/${ws.workspaceId}/apps/dues/settings`)
      .set(CONSOLE)
      .send({ collection: { mode: 'payment_link' } });
    expect(settings.status).toBe(200);
    if (script) expect((await request(api.server).put(scriptPath(ws)).set(CONSOLE).send(script)).status).toBe(200);
    return ws;
  }

  /** Subscribes a person starting today; answers due 0 (the one chased now). */
  async function firstDue(ws: TestWorkspace): Promise<DueDoc> {
    n += 1;
    const res = await request(api.server)
      .post('/api/v1/apps/dues/subscribers')
      .set(bearer(ws.key))
      .send({ name: `Payer ${n}`, phone: `+9198${String(Date.now() % 10_000).padStart(4, '0')}${String(n).padStart(4, '0')}`, amount: 900 });
    expect(res.status).toBe(201);
    return (await duesCollections(api.db).dues.findOne({ subscriber_id: res.body.subscriber_id, cycle_index: 0 }))!;
  }
  const dueNow = async (id: string) => (await duesCollections(api.db).dues.findOne({ _id: id }))!;

  it('GET answers the default; PUT replaces the script (defaults filled in); a bad value is 400; DELETE forgets it', async () => {
    const ws = await createTestWorkspace(api.db);
    expect((await request(api.server).get(scriptPath(ws)).set(CONSOLE)).body).toEqual({ create: 'ok', paid_after_minutes: null });
    const put = await request(api.server).put(scriptPath(ws)).set(CONSOLE).send({ paid_after_minutes: 5 });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ create: 'ok', paid_after_minutes: 5 });
    expect((await request(api.server).get(scriptPath(ws)).set(CONSOLE)).body).toEqual(put.body);
    const bad = await request(api.server).put(scriptPath(ws)).set(CONSOLE).send({ create: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors[0].loc).toEqual(['body', 'create']);
    const unknownKey = await request(api.server).put(scriptPath(ws)).set(CONSOLE).send({ paid_after: 5 });
    expect(unknownKey.status).toBe(400);
    expect((await request(api.server).delete(scriptPath(ws)).set(CONSOLE)).status).toBe(204);
    expect((await request(api.server).get(scriptPath(ws)).set(CONSOLE)).body).toEqual({ create: 'ok', paid_after_minutes: null });
  });

  it('paid after N minutes: the link is paid through the gateway path, the due paid with source gateway exactly once', async () => {
    // 0.02 minutes: 1.2 seconds after the link is created.
    const ws = await linkWorkspace({ paid_after_minutes: 0.02 });
    const due = await firstDue(ws);
    const paid = await eventually(async () => {
      const d = await dueNow(due._id);
      return d.status === 'paid' && d;
    }, 'the scripted payment', CHASE_DEADLINE_MS);
    expect(paid.payment_link_id).toMatch(/^plink_sim_/);
    expect(paid).toMatchObject({ paid_source: 'gateway', paid_amount: 900, payment_reference: paid.payment_link_id!.replace('plink_', 'pay_') });
    const subscriber = await eventually(async () => {
      const s = await duesCollections(api.db).subscribers.findOne({ _id: due.subscriber_id });
      return s?.dues_paid === 1 && s;
    }, 'the subscriber recounted', CHASE_DEADLINE_MS);
    expect(subscriber.collected_total).toBe(900);
    // Whatever else happens to the chase, one payment event, from the gateway. The event is
    // fired after the recount and the chase's stop (dues/dueActions.ts recordPayment): wait for
    // it, then give a second one time to show up before counting.
    const paidEvents = async () => (await eventsOf(api.db, ws.workspaceId, 'payment.paid')).filter((e) => (e.data as { due_id: string }).due_id === due._id);
    await eventually(async () => (await paidEvents()).length > 0, 'the payment.paid event', CHASE_DEADLINE_MS);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const events = await paidEvents();
    expect(events.map((e) => e.data)).toEqual([
      { due_id: due._id, subscriber_id: due.subscriber_id, amount: 900, period: due.period_label, reference: paid.payment_reference, source: 'gateway' },
    ]);
    // A repeated notice from the gateway changes nothing.
    const again = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/apps/dues/dues/${due._id}/gateway-payment`).set(CONSOLE).send({});
    expect(again.body.applied).toBe(false);
    expect((await dueNow(due._id)).version).toBe(paid.version);
  }, 180_000);

  it('never paid (the default): the link is created and the due stays open, no payment planned', async () => {
    const ws = await linkWorkspace(null);
    const due = await firstDue(ws);
    const reminded = await eventually(async () => {
      const d = await dueNow(due._id);
      return d.status === 'reminded' && d;
    }, 'the reminder with its link', CHASE_DEADLINE_MS);
    expect(reminded.payment_link).toBe(`https://pay.example.com/l/${reminded.payment_link_id}`);
    expect(reminded.failure_reason).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await dueNow(due._id)).status).toBe('reminded');
    expect(await eventsOf(api.db, ws.workspaceId, 'payment.paid')).toEqual([]);
    await expect(api.temporal.workflow.getHandle(simulatedLinkPaymentWorkflowId(reminded.payment_link_id!)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }, 120_000);

  it('link creation fails: no link, failure_reason payment_link_failed, the chase goes on to its next step', async () => {
    const ws = await linkWorkspace({ create: 'fail', paid_after_minutes: 0 });
    const due = await firstDue(ws);
    const failed = await eventually(async () => {
      const d = await dueNow(due._id);
      return d.failure_reason === 'payment_link_failed' && d;
    }, 'the refused link', CHASE_DEADLINE_MS);
    expect(failed).toMatchObject({ status: 'scheduled', payment_link: null, payment_link_id: null, paid_at: null });
    // The follow-up is planned: the chase did not stop.
    expect(failed.next_action_at).not.toBeNull();
    const chase = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/apps/dues/dues`).query({ subscriber_id: due.subscriber_id }).set(CONSOLE);
    expect(chase.body.items.find((d: { due_id: string }) => d.due_id === due._id).chase).toMatchObject({ state: 'running', failure_reason: 'payment_link_failed' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await eventsOf(api.db, ws.workspaceId, 'payment.paid')).toEqual([]);
  }, 120_000);
});
