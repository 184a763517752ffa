import { nextOpenTime, zonedHourStart, MESSAGE_BOUNDS } from '../domain/sendWindow';
import type { ChaseStep } from './contracts';
import { addDays, parseDate } from './cycle';
import type { DuesSettings } from './settings';

/**
 * When each step of a due's chase goes (pure; the chase workflow and the raise share it):
 * the reminder `reminder_offset_days` before the due date, follow-up 1 and 2 at their
 * intervals after it, the decline `decline_after_days` after follow-up 2, each planned at
 * `send_hour` local time. A step never goes before the one before it plus its interval (a
 * due raised late, or a step held by the window, pushes the rest), nor before now; messages
 * wait for the 09:00–21:00 window in the workspace's zone (the campaigns' window,
 * src/domain/sendWindow.ts). The decline sends nothing, so it needs no window.
 */

const DAY_MS = 86_400_000;
export const MESSAGE_WINDOW = { startHour: MESSAGE_BOUNDS.floorHour, endHour: MESSAGE_BOUNDS.ceilingHour };

export type ChaseTiming = Pick<DuesSettings, 'reminder_offset_days' | 'followup_interval_days' | 'decline_after_days' | 'send_hour'>;

export function plannedSteps(dueDate: string, timing: ChaseTiming, timeZone: string): Record<ChaseStep, number> {
  const [first, second] = timing.followup_interval_days;
  const reminder = addDays(dueDate, -timing.reminder_offset_days);
  const followup1 = addDays(reminder, first);
  const followup2 = addDays(followup1, second);
  const decline = addDays(followup2, timing.decline_after_days);
  const at = (date: string) => zonedHourStart(parseDate(date), timing.send_hour, timeZone).getTime();
  return { reminder: at(reminder), followup_1: at(followup1), followup_2: at(followup2), decline: at(decline) };
}

/** The least time from the step before to this one. */
export function stepGapsMs(timing: ChaseTiming): Record<ChaseStep, number> {
  const [first, second] = timing.followup_interval_days;
  return { reminder: 0, followup_1: first * DAY_MS, followup_2: second * DAY_MS, decline: timing.decline_after_days * DAY_MS };
}

/** When a step goes: its planned time, pushed by the step before it and by now, then held to the window. */
export function stepTime(step: ChaseStep, plannedMs: number, previousMs: number | null, gapMs: number, nowMs: number, timeZone: string): number {
  const at = Math.max(plannedMs, previousMs === null ? 0 : previousMs + gapMs, nowMs);
  return step === 'decline' ? at : nextOpenTime(new Date(at), MESSAGE_WINDOW, timeZone).getTime();
}

/** Every step's time for a chase starting at `nowMs`, if nothing stops it: each from the one before. */
export function chaseTimes(dueDate: string, timing: ChaseTiming, timeZone: string, nowMs: number): Record<ChaseStep, number> {
  const planned = plannedSteps(dueDate, timing, timeZone);
  const gaps = stepGapsMs(timing);
  const times = {} as Record<ChaseStep, number>;
  let previous: number | null = null;
  for (const step of ['reminder', 'followup_1', 'followup_2', 'decline'] as const) {
    times[step] = stepTime(step, planned[step], previous, gaps[step], nowMs, timeZone);
    previous = times[step];
  }
  return times;
}
