import { chaseTimes, plannedSteps } from '../../../src/dues/chasePlan';
import { DEFAULT_DUES_SETTINGS } from '../../../src/dues/settings';

const DAY = 86_400_000;
const utc = (s: string) => Date.parse(s);

describe('when the chase speaks', () => {
  const timing = { ...DEFAULT_DUES_SETTINGS, reminder_offset_days: 3, followup_interval_days: [3, 4] as [number, number], decline_after_days: 3, send_hour: 10 };

  it('the reminder offset days before the due date, the follow-ups at their intervals, the decline after, each at the send hour in the zone', () => {
    expect(plannedSteps('2026-03-10', timing, 'Asia/Kolkata')).toEqual({
      reminder: utc('2026-03-07T04:30:00Z'),
      followup_1: utc('2026-03-10T04:30:00Z'),
      followup_2: utc('2026-03-14T04:30:00Z'),
      decline: utc('2026-03-17T04:30:00Z'),
    });
  });

  it('a reminder offset of 0 speaks on the due date', () => {
    expect(plannedSteps('2026-03-10', { ...timing, reminder_offset_days: 0 }, 'UTC').reminder).toBe(utc('2026-03-10T10:00:00Z'));
  });

  it('as planned when the chase starts early enough', () => {
    expect(chaseTimes('2026-03-10', timing, 'UTC', utc('2026-03-01T00:00:00Z'))).toEqual(plannedSteps('2026-03-10', timing, 'UTC'));
  });

  it('a due raised late: the reminder now, each later step no sooner than its interval after the one before', () => {
    const now = utc('2026-03-10T12:00:00Z');
    expect(chaseTimes('2026-03-10', timing, 'UTC', now)).toEqual({
      reminder: now,
      followup_1: now + 3 * DAY,
      followup_2: now + 7 * DAY,
      decline: now + 10 * DAY,
    });
  });

  it('a message outside 09:00–21:00 in the zone waits for the next opening; the decline sends nothing and is not held', () => {
    const now = utc('2026-03-10T22:30:00Z');
    const times = chaseTimes('2026-03-10', { ...timing, send_hour: 22 }, 'UTC', now);
    expect(times.reminder).toBe(utc('2026-03-11T09:00:00Z'));
    expect(times.followup_1).toBe(utc('2026-03-14T09:00:00Z'));
    expect(times.decline).toBe(utc('2026-03-21T09:00:00Z'));
    const late = chaseTimes('2026-03-10', { ...timing, send_hour: 23 }, 'UTC', utc('2026-03-01T00:00:00Z'));
    expect(late.reminder).toBe(utc('2026-03-08T09:00:00Z'));
    expect(late.decline).toBe(utc('2026-03-18T09:00:00Z'));
  });

  it('an early send hour is held to 09:00 in Asia/Kolkata', () => {
    const times = chaseTimes('2026-03-10', { ...timing, send_hour: 6 }, 'Asia/Kolkata', utc('2026-03-01T00:00:00Z'));
    expect(times.reminder).toBe(utc('2026-03-07T03:30:00Z'));
  });
});
