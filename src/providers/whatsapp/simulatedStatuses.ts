import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../../db/insertIfAbsent';
import type { EventPublisher } from '../../events/publisher';
import type { SimulatedStatus } from '../../messaging/contracts';
import { applyDeliveryStatuses } from '../../messaging/deliveryStatus';
import { periodicPass, type PeriodicPass } from '../../worker/periodicPass';

type Failure = { code: number; title: string; message: string } | null;

/**
 * The simulated statuses one accepted message has still to report, stored when the message
 * is accepted so that none is lost when the process that scheduled them dies. Deleted once
 * the last is recorded, so the collection holds only messages with statuses to come.
 */
export interface PendingStatusesDoc {
  /** The provider message id the statuses are for: one document per message. */
  _id: string;
  tenant_id: string;
  /** In order, each with the time it is due: the send plus the pauses up to it. */
  steps: { status: SimulatedStatus; due_at: Date }[];
  /** The step to record next. */
  next: number;
  /** When `steps[next]` is due: what the sweep looks for. */
  due_at: Date;
  /** Why the message failed, for a `failed` step. */
  failure: Failure;
}

export function pendingStatusesCollection(db: Db): Collection<PendingStatusesDoc> {
  return db.collection<PendingStatusesDoc>('whatsapp_simulated_statuses');
}

/** A message whose next status is this late is taken to have lost its process and is taken over by a sweep. */
export const STATUS_SWEEP_GRACE_MS = 30_000;
export const STATUS_SWEEP_INTERVAL_MS = 10_000;

const until = (at: Date, now: number) =>
  new Promise<void>((resolve) => {
    const wait = at.getTime() - now;
    if (wait <= 0) return resolve();
    // Unreferenced: a scheduled status never keeps a process alive; the sweep covers it.
    setTimeout(resolve, wait).unref();
  });

/**
 * Reports the simulator's delivery statuses without a workflow per message (issue 13): each
 * accepted message is one stored document and a chain of timers in the process that accepted
 * it, which records every status at its due time, in order, through `applyDeliveryStatuses`
 * (emitting `message.status`); statuses due at the same moment are recorded together, so a
 * message whose statuses all come at once costs one insert and one delete here. A process
 * that dies leaves the document behind; the worker's sweep takes it over once its next
 * status is `STATUS_SWEEP_GRACE_MS` late. Recording a status twice (a sweep and a slow
 * owner) changes nothing: statuses move forward only and each event is stored once per
 * message and status.
 */
export class SimulatedStatusScheduler {
  /** Messages whose chain runs in this process. */
  private readonly running = new Set<string>();
  private sweeper: PeriodicPass | null = null;

  constructor(
    private readonly deps: { db: Db; events: EventPublisher },
    private readonly onError: (err: unknown, messageId: string) => void = () => undefined,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** Stores the message's statuses (once per message id) and starts reporting them here. */
  async schedule(input: {
    tenantId: string;
    messageId: string;
    acceptedAt: Date;
    steps: { status: SimulatedStatus; afterMs: number }[];
    failure: Failure;
  }): Promise<void> {
    if (input.steps.length === 0) return;
    let at = input.acceptedAt.getTime();
    const steps = input.steps.map((step) => ({ status: step.status, due_at: new Date((at += step.afterMs)) }));
    const doc: PendingStatusesDoc = { _id: input.messageId, tenant_id: input.tenantId, steps, next: 0, due_at: steps[0]!.due_at, failure: input.failure };
    if (await insertIfAbsent(pendingStatusesCollection(this.deps.db), doc)) this.run(doc);
  }

  /** Takes over at most `limit` messages whose next status is overdue by the grace; how many it took. */
  async sweepOnce(graceMs = STATUS_SWEEP_GRACE_MS, limit = 200): Promise<number> {
    const late = await pendingStatusesCollection(this.deps.db)
      .find({ due_at: { $lt: new Date(this.clock() - graceMs) } })
      .limit(limit)
      .toArray();
    let taken = 0;
    for (const doc of late) if (this.run(doc)) taken++;
    return taken;
  }

  /** Sweeps now and every `intervalMs` (the worker does); a failed sweep is reported and tried again next time. */
  startSweeping(intervalMs = STATUS_SWEEP_INTERVAL_MS): void {
    this.sweeper ??= periodicPass(() => this.sweepOnce(), intervalMs, (err) => this.onError(err, '(sweep)'));
    this.sweeper.start();
  }

  async stopSweeping(): Promise<void> {
    await this.sweeper?.stop();
    this.sweeper = null;
  }

  /** Records the message's remaining statuses in order, each at its due time; false if already running here. */
  private run(doc: PendingStatusesDoc): boolean {
    if (this.running.has(doc._id)) return false;
    this.running.add(doc._id);
    this.record(doc)
      .catch((err: unknown) => this.onError(err, doc._id))
      .finally(() => this.running.delete(doc._id));
    return true;
  }

  private async record(doc: PendingStatusesDoc): Promise<void> {
    const pending = pendingStatusesCollection(this.deps.db);
    for (let next = doc.next; next < doc.steps.length; ) {
      await until(doc.steps[next]!.due_at, this.clock());
      // Every step due by now is recorded in one go (one read and one write of the message
      // and its recipient): a script with 0 ms pauses has them all due at the send, and a
      // sweep taking over a late message finds several due.
      const end = dueThrough(doc.steps, next, this.clock());
      await applyDeliveryStatuses(this.deps, {
        tenantId: doc.tenant_id,
        messageId: doc._id,
        statuses: doc.steps.slice(next, end).map((step) => ({
          status: step.status,
          at: step.due_at,
          error: step.status === 'failed' ? doc.failure : null,
        })),
      });
      const following = doc.steps[end];
      if (following) await pending.updateOne({ _id: doc._id }, { $set: { next: end, due_at: following.due_at } });
      else await pending.deleteOne({ _id: doc._id });
      next = end;
    }
  }
}

/** The end (exclusive) of the run of steps from `from` that are due at `now`; always takes `from` itself. */
export function dueThrough(steps: readonly { due_at: Date }[], from: number, now: number): number {
  let end = from + 1;
  while (end < steps.length && steps[end]!.due_at.getTime() <= now) end++;
  return end;
}
