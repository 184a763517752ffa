import { condition } from '@temporalio/workflow';
import type { CallOutcome } from '../../src/calls/types';
import type { LineEvent } from '../../src/calls/voiceLine';

/** When the line says a call connected and ended: shared by both call lifecycles (call.ts, callLifecycle.ts). */

/** Ends only a connected call has: taken with no answer seen, the line's report of the answer is late. */
export const CONNECTED_OUTCOMES: ReadonlySet<CallOutcome> = new Set(['setup_error', 'caller_hangup', 'agent_hangup', 'idle', 'max_duration']);

/** How long an end taken before the answer waits for the line's own report of the call (the providers post it within a second or two). */
const LINE_REPORT_GRACE_MS = 10_000;

/**
 * When a line event happened: its own `at` when `useAt` and it is a time, held between
 * `notBefore` and now (a provider clock a little ahead, or an answer stamped before the call
 * began, must not give a negative or future span); otherwise now, the time the signal is taken.
 */
export function lineEventTime(event: LineEvent, useAt: boolean, notBefore: number): string {
  const now = Date.now();
  const at = useAt && typeof event.at === 'string' ? Date.parse(event.at) : Number.NaN;
  return new Date(Number.isFinite(at) ? Math.min(now, Math.max(notBefore, at)) : now).toISOString();
}

/**
 * The answer (and, when the line's report of the end carries it, the end) of a call whose end
 * was taken before its answer: from the end itself, else the line's report awaited up to the
 * grace (its end with the answer, else its `answered`); null when the line reports neither.
 * Times held between `begun` and now, the end never before the answer.
 */
export async function answerReportedLate(
  end: Extract<LineEvent, { kind: 'ended' }>,
  lineEvents: LineEvent[],
  begun: number,
  endedAt: string,
): Promise<{ answeredAt: string; endedAt: string } | null> {
  const networkEnd = (e: LineEvent): e is Extract<LineEvent, { kind: 'ended' }> & { answeredAt: string } => e.kind === 'ended' && typeof e.answeredAt === 'string';
  let report: { answeredAt: string; endedAt?: string } | null = networkEnd(end) ? { answeredAt: end.answeredAt, endedAt: end.at } : null;
  if (!report) {
    await condition(() => lineEvents.some(networkEnd), LINE_REPORT_GRACE_MS);
    const reported = lineEvents.find(networkEnd);
    const answered = lineEvents.find((e) => e.kind === 'answered');
    if (reported) report = { answeredAt: reported.answeredAt, endedAt: reported.at };
    else if (answered) report = { answeredAt: answered.at ?? new Date().toISOString() };
  }
  if (!report) return null;
  const now = Date.now();
  const held = (iso: string | undefined, from: number, fallback: number) => {
    const at = iso ? Date.parse(iso) : Number.NaN;
    return Number.isFinite(at) ? Math.min(now, Math.max(from, at)) : fallback;
  };
  const answered = held(report.answeredAt, begun, Date.parse(endedAt));
  const ended = held(report.endedAt, answered, Math.max(answered, Date.parse(endedAt)));
  return { answeredAt: new Date(answered).toISOString(), endedAt: new Date(ended).toISOString() };
}
