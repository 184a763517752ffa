import type { Client } from '@temporalio/client';
import { MongoOperationTimeoutError } from 'mongodb';
import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { dueChaseWorkflowId, duesCycleWorkflowId } from '../../../src/dues/contracts';
import { createSetupSweeper, SETUP_GIVE_UP_AFTER_MS, SETUP_SWEEP_GRACE_MS } from '../../../src/dues/setupSweeper';
import { duesCollections, phoneClaimId, type SubscriberInput } from '../../../src/dues/store';
import { createSubscriber } from '../../../src/dues/subscribers';
import type { EventInput } from '../../../src/events/eventStore';
import { createEventPublisher } from '../../../src/events/publisher';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { eventsOf } from '../../support/messaging';

/**
 * A create (POST /api/v1/apps/dues/subscribers) stopped after it claimed the phone is never
 * left half done (issue 16): the same create asked again finishes it, another create for the
 * phone is still a duplicate, and the worker's sweep finishes one nobody asks again for.
 */

const BASE = '/api/v1/apps/dues';
const UNAVAILABLE = envelope('internal', 'The database is not answering; retry shortly.', { reason: 'unavailable' });
const DUPLICATE = (subscriberId: string) =>
  envelope('conflict', 'A subscriber with this phone number already exists.', { reason: 'duplicate_recipient', subscriber_id: subscriberId });

describe('a dues subscriber create stopped short', () => {
  /** When set, the API's event publisher fails the first event it matches as a database over its budget would. */
  let failWhen: ((input: EventInput) => boolean) | null = null;
  const { api, ws } = useTestApi({
    wrapEvents: (events) => ({
      publish: async (input) => {
        if (failWhen?.(input)) {
          failWhen = null;
          throw new MongoOperationTimeoutError('Timed out (injected after the phone claim)');
        }
        return events.publish(input);
      },
    }),
  });
  let n = 0;
  const phone = () => {
    n += 1;
    return `+9196${String(Date.now() % 100_000).padStart(5, '0')}${String(n).padStart(3, '0')}`;
  };
  const subscribe = (body: Record<string, unknown>, idempotencyKey?: string) =>
    request(api.server)
      .post(`${BASE}/subscribers`)
      .set({ ...bearer(ws.key), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) })
      .send(body);
  const duesOf = (subscriberId: string) => duesCollections(api.db).dues.find({ subscriber_id: subscriberId }).sort({ cycle_index: 1 }).toArray();
  const claimOf = async (e164: string) => (await duesCollections(api.db).phones.findOne({ _id: phoneClaimId(ws.workspaceId, e164) }))!;
  const workflowStatus = async (workflowId: string) => (await api.temporal.workflow.getHandle(workflowId).describe()).status.name;

  /** Both dues on their dates with one payment.due_created each, both chases and the cycle running, no setup left. */
  async function expectFinished(subscriberId: string, firstDue: string, secondDue: string): Promise<void> {
    const dues = await duesOf(subscriberId);
    expect(dues.map((d) => [d.cycle_index, d.due_date, d.status])).toEqual([
      [0, firstDue, 'scheduled'],
      [1, secondDue, 'scheduled'],
    ]);
    const created = (await eventsOf(api.db, ws.workspaceId, 'payment.due_created')).filter((e) => e.data.subscriber_id === subscriberId);
    const byId = (a: string, b: string) => a.localeCompare(b);
    expect(created.map((e) => String(e.data.due_id)).sort(byId)).toEqual(dues.map((d) => d._id).sort(byId));
    for (const due of dues) expect(await workflowStatus(dueChaseWorkflowId(due._id))).toBe('RUNNING');
    expect(await workflowStatus(duesCycleWorkflowId(subscriberId))).toBe('RUNNING');
    expect(await duesCollections(api.db).setups.findOne({ _id: subscriberId })).toBeNull();
  }

  it('the retry with the same Idempotency-Key answers 201 with both dues, their chases and the cycle; another create for the phone is 409 duplicate_recipient', async () => {
    const e164 = phone();
    const body = { name: 'Asha Rao', phone: e164, amount: 1500, start_date: '2031-03-01' };
    const key = `resume-${Date.now()}`;
    // The second due's event fails: after the claim, the subscriber, the first due and its chase.
    let dueEvents = 0;
    failWhen = (input) => input.type === 'payment.due_created' && ++dueEvents === 2;
    const first = await subscribe(body, key);
    expect(first.status).toBe(503);
    expect(first.body).toEqual(UNAVAILABLE);
    const { subscriber_id: subscriberId } = await claimOf(e164);
    expect((await duesOf(subscriberId)).map((d) => d.cycle_index)).toEqual([0, 1]);
    expect(await duesCollections(api.db).setups.findOne({ _id: subscriberId })).not.toBeNull();

    // (b) Another create for the phone, before and after the first is finished: a duplicate naming it.
    const other = await subscribe({ ...body, name: 'Someone else' }, `other-${key}`);
    expect(other.status).toBe(409);
    expect(other.body).toEqual(DUPLICATE(subscriberId));
    // The same body without the key is not the same create either.
    const keyless = await subscribe(body);
    expect(keyless.status).toBe(409);
    expect(keyless.body).toEqual(DUPLICATE(subscriberId));

    // (a) The same create again finishes it and answers as the first would have.
    const retry = await subscribe(body, key);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({
      subscriber_id: subscriberId,
      phone: e164,
      name: 'Asha Rao',
      status: 'active',
      start_date: '2031-03-01',
      next_due_date: '2031-03-01',
      outstanding_total: 3000,
      version: 1,
    });
    await expectFinished(subscriberId, '2031-03-01', '2031-04-01');
    const replay = await subscribe(body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(retry.body);
    const later = await subscribe({ ...body, name: 'Someone else' }, `later-${key}`);
    expect(later.status).toBe(409);
    expect(later.body).toEqual(DUPLICATE(subscriberId));
  });

  it('a retry under the same key with another body is another create: 409 duplicate_recipient', async () => {
    const e164 = phone();
    const body = { name: 'Ravi Kumar', phone: e164, amount: 800, start_date: '2031-05-10' };
    const key = `changed-${Date.now()}`;
    failWhen = (input) => input.type === 'payment.due_created';
    expect((await subscribe(body, key)).status).toBe(503);
    const { subscriber_id: subscriberId } = await claimOf(e164);
    // The key was released by the 503, so the key layer lets another body through; the setup does not.
    const changed = await subscribe({ ...body, amount: 900 }, key);
    expect(changed.status).toBe(409);
    expect(changed.body).toEqual(DUPLICATE(subscriberId));
    expect((await subscribe(body, key)).status).toBe(201);
    await expectFinished(subscriberId, '2031-05-10', '2031-06-10');
  });

  it("the worker's sweep finishes a create nobody asks again for, once it is older than the grace; it drops a setup that lost its phone", async () => {
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    const events = createEventPublisher(api.db, { dispatch: async () => undefined });
    const temporalDown = {
      workflow: { start: () => Promise.reject(new Error('14 UNAVAILABLE: No connection established (injected)')) },
    } as unknown as Client;
    const e164 = phone();
    const input: SubscriberInput = { name: 'Meera Iyer', phone: e164, email: null, plan_name: 'Monthly plan', amount: 700, cycle_unit: 'monthly', cycle_days: null, due_day: null, start_date: '2031-07-15' };
    const startedAt = new Date();
    await expect(
      createSubscriber({ db: api.db, events, temporal: temporalDown, taskQueue: api.config.TEMPORAL_TASK_QUEUE }, workspace, input, startedAt),
    ).rejects.toThrow('UNAVAILABLE');
    const { subscriber_id: subscriberId } = await claimOf(e164);
    expect((await duesOf(subscriberId)).map((d) => d.cycle_index)).toEqual([0]);

    // A setup that lost its phone to another create (its creator died before deleting it).
    const loser = { _id: 'sub_000000000000000000000001', tenant_id: ws.workspaceId, request: null, input: { ...input, start_date: '2031-07-15' }, created_at: startedAt };
    await duesCollections(api.db).setups.insertOne(loser);

    let clock = startedAt.getTime() + SETUP_SWEEP_GRACE_MS - 1_000;
    const sweeper = createSetupSweeper({
      deps: { db: api.db, events, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE },
      now: () => new Date(clock),
      onError: (err) => {
        throw err;
      },
    });
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(await duesCollections(api.db).setups.findOne({ _id: subscriberId })).not.toBeNull();
    clock = startedAt.getTime() + SETUP_SWEEP_GRACE_MS + 1_000;
    expect(await sweeper.sweepOnce()).toBe(1);
    await expectFinished(subscriberId, '2031-07-15', '2031-08-15');
    expect(await duesCollections(api.db).setups.findOne({ _id: loser._id })).toBeNull();
    expect(await duesCollections(api.db).subscribers.findOne({ _id: loser._id })).toBeNull();
    expect(await duesCollections(api.db).subscribers.findOne({ _id: subscriberId })).toMatchObject({
      contact_pending: false,
      outstanding_total: 1400,
      next_due_date: '2031-07-15',
    });
    const res = await request(api.server).get(`${BASE}/subscribers`).set(bearer(ws.key)).query({ limit: 200 });
    expect(res.body.items.map((s: { subscriber_id: string }) => s.subscriber_id)).toContain(subscriberId);
  });
  it('the sweep gives up on a setup that can never finish (start_date 9999-12-31, recorded before dates were bounded): the subscriber cancelled with why, the phone released, no retry', async () => {
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    const events = createEventPublisher(api.db, { dispatch: async () => undefined });
    const deps = { db: api.db, events, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE };
    const e164 = phone();
    const input: SubscriberInput = { name: 'Kiran Das', phone: e164, email: null, plan_name: 'Monthly plan', amount: 500, cycle_unit: 'monthly', cycle_days: null, due_day: null, start_date: '9999-12-31' };
    const startedAt = new Date();
    // What the API did before the bound: the cycle math overflows after the subscriber is written.
    await expect(createSubscriber(deps, workspace, input, startedAt)).rejects.toThrow(RangeError);
    const { subscriber_id: subscriberId } = await claimOf(e164);
    expect(await duesCollections(api.db).setups.findOne({ _id: subscriberId })).not.toBeNull();
    expect((await subscribe({ name: 'Kiran Das', phone: e164, amount: 500 })).status).toBe(409);

    const errors: unknown[] = [];
    const givenUp: [string, unknown][] = [];
    const sweeper = createSetupSweeper({
      deps,
      now: () => new Date(startedAt.getTime() + SETUP_SWEEP_GRACE_MS + 1_000),
      onError: (err) => errors.push(err),
      onGiveUp: (id, failure) => givenUp.push([id, failure]),
    });
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(errors).toEqual([]);
    const why = { reason: 'invalid_input', message: 'start_date 9999-12-31: expected a start date from 1970-01-01 to 2999-12-31', at: expect.any(Date) };
    expect(givenUp).toEqual([[subscriberId, why]]);
    expect(await duesCollections(api.db).setups.findOne({ _id: subscriberId })).toBeNull();
    expect(await duesCollections(api.db).phones.findOne({ _id: phoneClaimId(ws.workspaceId, e164) })).toBeNull();
    expect(await duesCollections(api.db).subscribers.findOne({ _id: subscriberId })).toMatchObject({ status: 'cancelled', setup_failure: why });
    expect(await duesOf(subscriberId)).toEqual([]);
    // Nothing left to try: the next pass is quiet.
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(errors).toEqual([]);
    expect(givenUp).toHaveLength(1);
    // The phone is free for a new create.
    const again = await subscribe({ name: 'Kiran Das', phone: e164, amount: 500, start_date: '2031-09-01' });
    expect(again.status).toBe(201);
    expect(again.body.subscriber_id).not.toBe(subscriberId);
  });

  it('the sweep gives up on a setup whose step still fails a day after its create; before that it tries again each pass', async () => {
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    const events = createEventPublisher(api.db, { dispatch: async () => undefined });
    const temporalDown = {
      workflow: {
        start: () => Promise.reject(new Error('14 UNAVAILABLE: No connection established (injected)')),
        getHandle: () => ({ signal: () => Promise.resolve() }),
      },
    } as unknown as Client;
    const deps = { db: api.db, events, temporal: temporalDown, taskQueue: api.config.TEMPORAL_TASK_QUEUE };
    const e164 = phone();
    const input: SubscriberInput = { name: 'Leela Nair', phone: e164, email: null, plan_name: 'Monthly plan', amount: 650, cycle_unit: 'monthly', cycle_days: null, due_day: null, start_date: '2031-10-05' };
    const startedAt = new Date();
    await expect(createSubscriber(deps, workspace, input, startedAt)).rejects.toThrow('UNAVAILABLE');
    const { subscriber_id: subscriberId } = await claimOf(e164);

    let clock = startedAt.getTime() + SETUP_SWEEP_GRACE_MS + 1_000;
    const errors: unknown[] = [];
    const givenUp: [string, unknown][] = [];
    const sweeper = createSetupSweeper({ deps, now: () => new Date(clock), onError: (err) => errors.push(err), onGiveUp: (id, failure) => givenUp.push([id, failure]) });
    await sweeper.sweepOnce();
    expect(errors.map(String)).toEqual([expect.stringContaining('UNAVAILABLE')]);
    expect(givenUp).toEqual([]);
    expect(await duesCollections(api.db).setups.findOne({ _id: subscriberId })).not.toBeNull();

    clock = startedAt.getTime() + SETUP_GIVE_UP_AFTER_MS + 1_000;
    await sweeper.sweepOnce();
    expect(errors).toHaveLength(1);
    const why = { reason: 'setup_failed', message: '14 UNAVAILABLE: No connection established (injected)', at: expect.any(Date) };
    expect(givenUp).toEqual([[subscriberId, why]]);
    expect(await duesCollections(api.db).setups.findOne({ _id: subscriberId })).toBeNull();
    expect(await duesCollections(api.db).phones.findOne({ _id: phoneClaimId(ws.workspaceId, e164) })).toBeNull();
    expect(await duesCollections(api.db).subscribers.findOne({ _id: subscriberId })).toMatchObject({ status: 'cancelled', setup_failure: why, outstanding_total: 0 });
    // The first due, raised before the failure, is cancelled: nothing of it is chased.
    expect((await duesOf(subscriberId)).map((d) => d.status)).toEqual(['cancelled']);
  });
});
