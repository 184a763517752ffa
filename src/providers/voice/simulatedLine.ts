import type { Collection, Db } from 'mongodb';
import type { SimulatedCallPlan } from '../../calls/contracts';
import { insertIfAbsent } from '../../db/insertIfAbsent';
import type { LineEvent } from '../../calls';
import { overdueSweep, SWEEP_LIMIT } from '../../async/overdueSweep';

/** One line event the simulated network will report, with the time it is due. */
export interface ScheduledLineEvent {
  event: LineEvent;
  due_at: Date;
}

/**
 * The line events one simulated call has still to report, stored when the call is placed so
 * that none is lost when the process that placed it dies. Deleted after the last is reported,
 * when the call is hung up, or when the call has finished, so the collection holds only calls
 * with events to come (the sweep reads all of it; `simulator_calls` keeps every call's plan).
 */
export interface PendingLineEventsDoc {
  /** The call id: one document per call. */
  _id: string;
  tenant_id: string;
  steps: ScheduledLineEvent[];
  /** The step to report next. */
  next: number;
  /** When `steps[next]` is due (its planned gap after the previous one was reported): what the sweep looks for. */
  due_at: Date;
}

export function pendingLineEventsCollection(db: Db): Collection<PendingLineEventsDoc> {
  return db.collection<PendingLineEventsDoc>('simulator_line_events');
}

/** A call whose next line event is this late is taken to have lost its process and is taken over by a sweep. */
export const LINE_SWEEP_GRACE_MS = 30_000;
export const LINE_SWEEP_INTERVAL_MS = 10_000;

/**
 * The events the `simulatedCallee` workflow (workflows/calls/simulatedCallee.ts) reports for `plan`,
 * at the same offsets from `placedAt`: each of its waits rounded to the millisecond as its
 * timers are. Ringing, then the network's outcome (nothing for `no_answer`: the call's own
 * ring time decides) or `answered`; a handoff (`human_handoff`, then `human_active` 2 s
 * later) when it comes before the end; `ended` after the talk time, counted from the answer
 * and never before `human_active`; nothing more for a callee that never hangs up.
 */
export function lineSchedule(plan: SimulatedCallPlan, placedAt: Date): ScheduledLineEvent[] {
  let at = placedAt.getTime();
  const after = (seconds: number) => new Date((at += Math.round(seconds * 1000)));
  const ringEnds = after(plan.ringSeconds);
  if (!plan.answer) return plan.networkOutcome === 'no_answer' ? [] : [{ event: { kind: 'ended', outcome: plan.networkOutcome }, due_at: ringEnds }];
  const steps: ScheduledLineEvent[] = [{ event: { kind: 'answered' }, due_at: ringEnds }];
  let elapsed = 0;
  if (plan.handoffAfterSeconds !== null && (plan.talkSeconds === null || plan.handoffAfterSeconds < plan.talkSeconds)) {
    steps.push({ event: { kind: 'human_handoff' }, due_at: after(plan.handoffAfterSeconds) });
    steps.push({ event: { kind: 'human_active' }, due_at: after(2) });
    elapsed = plan.handoffAfterSeconds + 2;
  }
  if (plan.talkSeconds !== null) steps.push({ event: { kind: 'ended', outcome: plan.endOutcome }, due_at: after(Math.max(0, plan.talkSeconds - elapsed)) });
  return steps;
}

/** Reports one event to the call; `finished` when the call is already over (nothing left to tell it). */
export type ReportLineEvent = (callId: string, event: LineEvent) => Promise<'reported' | 'finished'>;

/** A chain running in this process; `wake` ends its current wait early. */
interface RunningLine {
  stopped: boolean;
  wake: (() => void) | null;
}

/**
 * Reports the simulated network's line events without a workflow per call (issue 13): each
 * placed call is one stored document and a chain of timers in the process that placed it
 * (the worker, in the `placeCall` activity), which reports every event at its due time, in
 * order, as the call workflow's `lineEvent` signal stamped with its planned time (`at`); each
 * wait after the first counts from when the previous event was reported, as the workflow's
 * timers did. A hang-up deletes the document and stops
 * the chain here; a chain in another process finds the document gone before its next event.
 * A process that dies leaves the document behind; the worker's sweep takes it over once its
 * next event is `LINE_SWEEP_GRACE_MS` late. A call that has finished stops the chain, as it
 * stopped the workflow. An event reported twice (a sweep and a slow owner, or a process that
 * died between reporting and recording it) is one the call workflow already handles: a
 * repeated `answered` is ignored, and anything after `ended` finds the call finished.
 */
export class SimulatedLineScheduler {
  /** Calls whose chain runs in this process. */
  private readonly running = new Map<string, RunningLine>();
  private readonly sweep = overdueSweep({
    collection: () => pendingLineEventsCollection(this.db),
    takeOver: (doc) => this.run(doc),
    graceMs: LINE_SWEEP_GRACE_MS,
    clock: () => this.clock(),
    onError: (err) => this.onError(err, '(sweep)'),
  });

  constructor(
    private readonly db: Db,
    private readonly report: ReportLineEvent,
    private readonly onError: (err: unknown, callId: string) => void = () => undefined,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** Stores the call's events (once per call id) and starts reporting them here. */
  async schedule(input: { tenantId: string; callId: string; steps: ScheduledLineEvent[] }): Promise<void> {
    if (input.steps.length === 0) return;
    const doc: PendingLineEventsDoc = { _id: input.callId, tenant_id: input.tenantId, steps: input.steps, next: 0, due_at: input.steps[0]!.due_at };
    if (await insertIfAbsent(pendingLineEventsCollection(this.db), doc)) this.run(doc);
  }

  /** The call was hung up: no event after this one, here or in any process; true if events were still to come. */
  async hangup(callId: string): Promise<boolean> {
    const line = this.running.get(callId);
    if (line) {
      line.stopped = true;
      line.wake?.();
    }
    const deleted = await pendingLineEventsCollection(this.db).deleteOne({ _id: callId });
    return deleted.deletedCount === 1;
  }

  /** Takes over at most `limit` calls whose next event is overdue by the grace; how many it took. */
  sweepOnce(graceMs = LINE_SWEEP_GRACE_MS, limit = SWEEP_LIMIT): Promise<number> {
    return this.sweep.once(graceMs, limit);
  }

  /** Sweeps now and every `intervalMs` (the worker does); a failed sweep is reported and tried again next time. */
  startSweeping(intervalMs = LINE_SWEEP_INTERVAL_MS): void {
    this.sweep.start(intervalMs);
  }

  stopSweeping(): Promise<void> {
    return this.sweep.stop();
  }

  /** Reports the call's remaining events in order, each at its due time; false if already running here. */
  private run(doc: PendingLineEventsDoc): boolean {
    if (this.running.has(doc._id)) return false;
    const line: RunningLine = { stopped: false, wake: null };
    this.running.set(doc._id, line);
    this.reportAll(doc, line)
      .catch((err: unknown) => this.onError(err, doc._id))
      .finally(() => this.running.delete(doc._id));
    return true;
  }

  /** Waits until `at`, or less if the line is stopped first; true when the wait ran out. */
  private until(at: Date, line: RunningLine): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const wait = at.getTime() - this.clock();
      if (line.stopped) return resolve(false);
      if (wait <= 0) return resolve(true);
      // Unreferenced: a scheduled event never keeps a process alive; the sweep covers it.
      const timer = setTimeout(() => resolve(true), wait);
      timer.unref();
      line.wake = () => {
        clearTimeout(timer);
        resolve(false);
      };
    }).finally(() => {
      line.wake = null;
    });
  }

  private async reportAll(doc: PendingLineEventsDoc, line: RunningLine): Promise<void> {
    const pending = pendingLineEventsCollection(this.db);
    let due = doc.due_at;
    for (let i = doc.next; i < doc.steps.length; i++) {
      const step = doc.steps[i]!;
      if (!(await this.until(due, line))) return;
      // Hung up from another process (or already reported by a sweep): the document says so.
      const current = await pending.findOne({ _id: doc._id });
      if (!current || current.next > i || line.stopped) return;
      // Stamped with its planned time, as a network stamps its own: the call counts its
      // connection from these, however late this report or its processing comes.
      if ((await this.report(doc._id, { ...step.event, at: step.due_at.toISOString() })) === 'finished') {
        await pending.deleteOne({ _id: doc._id });
        return;
      }
      const following = doc.steps[i + 1];
      if (!following) {
        await pending.deleteOne({ _id: doc._id });
        return;
      }
      // The workflow started each wait once its previous signal was taken: an event reported
      // late delays the rest by as much. (Before events carried `at`, this kept the talk the
      // call saw from shrinking; it now only keeps the events' spacing as planned.)
      due = new Date(this.clock() + (following.due_at.getTime() - step.due_at.getTime()));
      await pending.updateOne({ _id: doc._id }, { $set: { next: i + 1, due_at: due } });
    }
  }
}
