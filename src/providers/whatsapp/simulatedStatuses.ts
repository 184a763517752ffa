import type { Collection, Db } from 'mongodb';
import { bulkWriteInChunks } from '../../db/bulkWrite';
import { findByIds } from '../../db/findByIds';
import { insertManyIfAbsent } from '../../db/insertIfAbsent';
import type { EventPublisher } from '../../events';
import type { SimulatedStatus } from '../../messaging/contracts';
import { applyStatusesOfMessages } from '../../messaging/deliveryStatus';
import { outboundMessagesCollection } from '../../messaging/outboundMessages';
import { PARKED_STATUS_TTL_MS } from '../../messaging/earlyStatuses';
import { finishRecording } from '../../messaging/sendMessage';
import { resolveFromStatus } from '../../messaging/unknownOutcomes';
import { overdueSweep, SWEEP_LIMIT } from '../../async/overdueSweep';

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
  /**
   * What the send gave to be handed back with its statuses (its intent key), as the Cloud API
   * echoes `biz_opaque_callback_data`: a status of a message the send never recorded finds
   * the send by it (src/messaging/unknownOutcomes.ts). Absent on documents stored before it.
   */
  callback_data?: string | null;
}

export function pendingStatusesCollection(db: Db): Collection<PendingStatusesDoc> {
  return db.collection<PendingStatusesDoc>('whatsapp_simulated_statuses');
}

/** A message whose next status is this late is taken to have lost its process and is taken over by a sweep. */
export const STATUS_SWEEP_GRACE_MS = 30_000;
export const STATUS_SWEEP_INTERVAL_MS = 10_000;

/**
 * How long `schedule` calls and statuses falling due wait for others to join them: calls
 * arriving within this window store their documents in one `insertMany`, and statuses due
 * within it are recorded in one pass. A status is reported at most this late.
 */
export const GATHER_MS = 2;
/** The most messages one insert or one recording pass carries (within `findByIds`'s `$in` limit). */
export const GROUP_MAX = 500;

/** A `schedule` call waiting for its group's insert. */
interface Arriving {
  doc: PendingStatusesDoc;
  /** Reported from here once stored (`schedule`), or only stored (`store`: the send, before `accepted`). */
  runHere: boolean;
  stored: () => void;
  failed: (err: unknown) => void;
}

/**
 * Reports the simulator's delivery statuses without a workflow per message (issue 13): each
 * accepted message is one stored document and a timer in the process that accepted it,
 * which records every status at its due time, in order, through `applyStatusesOfMessages`
 * (emitting `message.status`); statuses due at the same moment are recorded together, so a
 * message whose statuses all come at once costs one insert and one delete here. Messages
 * accepted together share those commands (docs/decisions/messaging.md "Many messages' simulated
 * statuses recorded together"): `schedule` calls arriving within `GATHER_MS` store their
 * documents in one `insertMany`, and the statuses of every message falling due within `GATHER_MS` are
 * recorded in one pass: one read of their messages, one write of them, one of their
 * recipients, one bulk publish of their events, then one `deleteMany` of the finished
 * documents (and one write moving on the others). A process that dies leaves the documents
 * behind; the worker's sweep takes them over once their next status is
 * `STATUS_SWEEP_GRACE_MS` late. Recording a status twice (a sweep and a slow owner) changes
 * nothing: statuses move forward only and each event is stored once per message and status.
 */
export class SimulatedStatusScheduler {
  /** Messages whose statuses are reported by this process. */
  private readonly running = new Set<string>();
  /** Of those, the ones a sweep took over: their message may never have been recorded (`recordable`). */
  private readonly swept = new Set<string>();
  private readonly sweep = overdueSweep({
    collection: () => pendingStatusesCollection(this.deps.db),
    takeOver: (doc) => {
      const taken = this.run(doc);
      if (taken) this.swept.add(doc._id);
      return taken;
    },
    graceMs: STATUS_SWEEP_GRACE_MS,
    clock: () => this.clock(),
    onError: (err) => this.onError(err, '(sweep)'),
  });
  /** `schedule` calls gathering for one insert. */
  private arriving: Arriving[] = [];
  private arrivingTimer: NodeJS.Timeout | null = null;
  /** Messages with a status due, gathering for one recording pass. */
  private due: PendingStatusesDoc[] = [];
  private dueTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: { db: Db; events: EventPublisher },
    private readonly onError: (err: unknown, messageId: string) => void = () => undefined,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /**
   * Stores the message's statuses (once per message id) and starts reporting them here;
   * settles once its group's insert has. Safe to repeat: a stored message id is left as it is.
   */
  async schedule(input: ScheduleInput): Promise<void> {
    if (input.steps.length === 0) return;
    await this.gather(pendingDoc(input), true);
  }

  /**
   * Stores the message's statuses without reporting them here yet (the simulator's `send`,
   * before it answers: the provider's record of an accepted message outlives the sender, as
   * Meta's does). `start` reports them once the send is recorded; if the sender dies first, a
   * sweep finds them overdue and reports them, and their `callback_data` finds the send.
   * Answers the stored document (null: no statuses).
   */
  async store(input: ScheduleInput & { callbackData?: string }): Promise<PendingStatusesDoc | null> {
    if (input.steps.length === 0) return null;
    const doc = { ...pendingDoc(input), callback_data: input.callbackData ?? null };
    await this.gather(doc, false);
    return doc;
  }

  /** Reports a stored document's statuses from here (no write: `store` wrote it). */
  start(doc: PendingStatusesDoc): void {
    this.run(doc);
  }

  private gather(doc: PendingStatusesDoc, runHere: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.arriving.push({ doc, runHere, stored: resolve, failed: reject });
      if (this.arriving.length >= GROUP_MAX) this.storeArriving();
      else this.arrivingTimer ??= setTimeout(() => this.storeArriving(), GATHER_MS);
    });
  }

  /** Takes over at most `limit` messages whose next status is overdue by the grace; how many it took. */
  sweepOnce(graceMs = STATUS_SWEEP_GRACE_MS, limit = SWEEP_LIMIT): Promise<number> {
    return this.sweep.once(graceMs, limit);
  }

  /** Sweeps now and every `intervalMs` (the worker does); a failed sweep is reported and tried again next time. */
  startSweeping(intervalMs = STATUS_SWEEP_INTERVAL_MS): void {
    this.sweep.start(intervalMs);
  }

  stopSweeping(): Promise<void> {
    return this.sweep.stop();
  }

  /**
   * Inserts the gathered documents in one unordered `insertMany`; a duplicate `_id` is a
   * message scheduled before or earlier in the group (its reporting runs, here or after a
   * sweep), as `insertIfAbsent` answers. Any other failure fails every call of the group
   * (each caller retries; the ones stored meanwhile are then duplicates, left to the sweep).
   */
  private storeArriving(): void {
    if (this.arrivingTimer) clearTimeout(this.arrivingTimer);
    this.arrivingTimer = null;
    const group = this.arriving;
    this.arriving = [];
    void insertManyIfAbsent(pendingStatusesCollection(this.deps.db), group.map((a) => a.doc)).then(
      (refused) => {
        for (const [position, { doc, runHere, stored }] of group.entries()) {
          if (runHere && !refused.has(position)) this.run(doc);
          stored();
        }
      },
      (err: unknown) => {
        for (const { failed } of group) failed(err);
      },
    );
  }

  /** Reports the message's remaining statuses here; false if already reported here. */
  private run(doc: PendingStatusesDoc): boolean {
    if (this.running.has(doc._id)) return false;
    this.running.add(doc._id);
    this.whenDue(doc);
    return true;
  }

  /** Joins the recording pass of the moment the message's next status is due. */
  private whenDue(doc: PendingStatusesDoc): void {
    const wait = doc.steps[doc.next]!.due_at.getTime() - this.clock();
    if (wait > 0) {
      // Unreferenced: a scheduled status never keeps a process alive; the sweep covers it.
      setTimeout(() => this.whenDue(doc), wait).unref();
      return;
    }
    this.due.push(doc);
    if (this.due.length >= GROUP_MAX) this.recordDue();
    else this.dueTimer ??= setTimeout(() => this.recordDue(), GATHER_MS);
  }

  /** Records the gathered messages' due statuses in one pass; a failure is reported per message and left to the sweep. */
  private recordDue(): void {
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    const group = this.due;
    this.due = [];
    this.record(group).then(
      (following) => {
        const continuing = new Set(following.map((doc) => doc._id));
        for (const doc of group) if (!continuing.has(doc._id)) this.running.delete(doc._id);
        for (const doc of following) this.whenDue(doc);
      },
      (err: unknown) => {
        for (const doc of group) {
          this.running.delete(doc._id);
          this.onError(err, doc._id);
        }
      },
    );
  }

  /**
   * The documents whose message is recorded, so their statuses can be: only a sweep meets one
   * whose send never recorded its answer (its sender died after `store`). Such a message is
   * looked for by its `callback_data` as the Cloud API webhook does (`resolveFromStatus`): a send
   * whose attempt is gone is adopted and its statuses recorded now; one still live, or recorded
   * but not yet written, is looked at again a grace later (its `due_at` moved on); one nobody
   * claims within a day (PARKED_STATUS_TTL_MS) is dropped, as a parked Cloud status is.
   */
  private async recordable(group: PendingStatusesDoc[], now: number): Promise<PendingStatusesDoc[]> {
    // Reported here after `accepted`: recorded. Only a swept document needs looking at, and only
    // one with callback data (one stored before it is recorded as it always was).
    for (const doc of group) if (!doc.callback_data) this.swept.delete(doc._id);
    const swept = group.filter((doc) => this.swept.has(doc._id));
    if (swept.length === 0) return group;
    for (const doc of swept) this.swept.delete(doc._id);
    const found = await findByIds(outboundMessagesCollection(this.deps.db), swept.map((doc) => doc._id), { projection: { _id: 1 } });
    if (found.length === swept.length) return group;
    const known = new Set(found.map((m) => m._id));
    const finish = (intent: Parameters<typeof finishRecording>[1]) => finishRecording({ db: this.deps.db, events: this.deps.events, provider: {} }, intent);
    const ready: PendingStatusesDoc[] = [];
    const pending = pendingStatusesCollection(this.deps.db);
    for (const doc of group) {
      // Accepted at its first step's time: the adopted send's `sent_at`.
      const at = doc.steps[0]!.due_at;
      const adopted =
        known.has(doc._id) ||
        !swept.includes(doc) ||
        (await resolveFromStatus({ db: this.deps.db, now: () => new Date(now) }, { messageId: doc._id, callbackData: doc.callback_data!, at }, finish));
      if (adopted) ready.push(doc);
      else if (now - doc.steps[0]!.due_at.getTime() > PARKED_STATUS_TTL_MS) await pending.deleteOne({ _id: doc._id });
      else await pending.updateOne({ _id: doc._id }, { $set: { due_at: new Date(now) } });
    }
    return ready;
  }

  /**
   * Records every step of each message due by now (a script with 0 ms pauses has them all
   * due at the send, and a sweep taking over a late message finds several due), then deletes
   * the finished documents and moves the others on: only after their statuses are recorded,
   * so a process dying in between leaves them to the sweep. Answers the messages with steps
   * still to come, moved on.
   */
  private async record(all: PendingStatusesDoc[]): Promise<PendingStatusesDoc[]> {
    const now = this.clock();
    const group = await this.recordable(all, now);
    const ends = group.map((doc) => dueThrough(doc.steps, doc.next, now));
    await applyStatusesOfMessages(
      this.deps,
      group.map((doc, i) => ({
        tenantId: doc.tenant_id,
        messageId: doc._id,
        statuses: doc.steps.slice(doc.next, ends[i]).map((step) => ({
          status: step.status,
          at: step.due_at,
          error: step.status === 'failed' ? doc.failure : null,
        })),
      })),
    );
    const pending = pendingStatusesCollection(this.deps.db);
    const following = group.flatMap((doc, i) => (ends[i]! < doc.steps.length ? [{ ...doc, next: ends[i]!, due_at: doc.steps[ends[i]!]!.due_at }] : []));
    const finished = group.filter((doc, i) => ends[i]! >= doc.steps.length).map((doc) => doc._id);
    await bulkWriteInChunks(
      pending,
      following.map((doc) => ({ updateOne: { filter: { _id: doc._id }, update: { $set: { next: doc.next, due_at: doc.due_at } } } })),
      { ordered: false },
    );
    // The `_id $in` is answered from the index (GROUP_MAX is within its limit, src/db/findByIds.ts).
    if (finished.length > 0) await pending.deleteMany({ _id: { $in: finished } });
    return following;
  }
}

interface ScheduleInput {
  tenantId: string;
  messageId: string;
  acceptedAt: Date;
  steps: { status: SimulatedStatus; afterMs: number }[];
  failure: Failure;
}

function pendingDoc(input: ScheduleInput): PendingStatusesDoc {
  let at = input.acceptedAt.getTime();
  const steps = input.steps.map((step) => ({ status: step.status, due_at: new Date((at += step.afterMs)) }));
  return { _id: input.messageId, tenant_id: input.tenantId, steps, next: 0, due_at: steps[0]!.due_at, failure: input.failure };
}

/** The end (exclusive) of the run of steps from `from` that are due at `now`; always takes `from` itself. */
export function dueThrough(steps: readonly { due_at: Date }[], from: number, now: number): number {
  let end = from + 1;
  while (end < steps.length && steps[end]!.due_at.getTime() <= now) end++;
  return end;
}
