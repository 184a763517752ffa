import { CALL_BOUNDS, MESSAGE_BOUNDS, clampWindow, isWindowOpen, localTime, nextOpenTime, zonedHourStart } from '../../../src/domain/sendWindow';

const DEFAULTS = { startHour: 9, endHour: 21 };

describe('clampWindow: a schedule may narrow the 09:00 floor and 21:00 ceiling, never widen them', () => {
  it('takes the workspace defaults when nothing is asked', () => {
    expect(clampWindow({ startHour: null, endHour: null }, DEFAULTS, MESSAGE_BOUNDS)).toEqual({ startHour: 9, endHour: 21, clamped: false });
  });
  it('narrows to asked hours inside the bounds', () => {
    expect(clampWindow({ startHour: 11, endHour: 17 }, DEFAULTS, MESSAGE_BOUNDS)).toEqual({ startHour: 11, endHour: 17, clamped: false });
  });
  it('clamps an earlier start and a later end, and says so', () => {
    expect(clampWindow({ startHour: 6, endHour: null }, DEFAULTS, MESSAGE_BOUNDS)).toEqual({ startHour: 9, endHour: 21, clamped: true });
    expect(clampWindow({ startHour: null, endHour: 24 }, DEFAULTS, MESSAGE_BOUNDS)).toEqual({ startHour: 9, endHour: 21, clamped: true });
  });
  it('holds calls to 10:00 to 19:00 regardless', () => {
    expect(clampWindow({ startHour: 9, endHour: 21 }, DEFAULTS, CALL_BOUNDS)).toEqual({ startHour: 10, endHour: 19, clamped: true });
  });
});

describe('nextOpenTime in the campaign zone', () => {
  const window = { startHour: 9, endHour: 21 };
  it('is the instant itself inside the window', () => {
    const at = new Date('2025-03-10T06:00:00Z'); // 11:30 in Kolkata
    expect(nextOpenTime(at, window, 'Asia/Kolkata')).toEqual(at);
  });
  it('is open at 20:30 (the ceiling is 21:00) and 09:00 the next day after a 21:30 launch', () => {
    expect(isWindowOpen(new Date('2025-03-10T15:00:00Z'), window, 'Asia/Kolkata')).toBe(true); // 20:30 IST
    const at = new Date('2025-03-10T16:00:00Z'); // 21:30 IST
    expect(nextOpenTime(at, window, 'Asia/Kolkata').toISOString()).toBe('2025-03-11T03:30:00.000Z');
  });
  it('is 09:00 the same day before the window opens', () => {
    const at = new Date('2025-03-10T00:00:00Z'); // 05:30 IST
    expect(nextOpenTime(at, window, 'Asia/Kolkata').toISOString()).toBe('2025-03-10T03:30:00.000Z');
  });
  it('closes at the end hour exactly (the window is [start, end))', () => {
    expect(isWindowOpen(new Date('2025-03-10T15:29:59Z'), window, 'Asia/Kolkata')).toBe(true);
    expect(isWindowOpen(new Date('2025-03-10T15:30:00Z'), window, 'Asia/Kolkata')).toBe(false);
  });
  it('uses the narrowed window', () => {
    const at = new Date('2025-03-10T09:00:00Z'); // 14:30 IST, after a 10 to 14 window
    expect(nextOpenTime(at, { startHour: 10, endHour: 14 }, 'Asia/Kolkata').toISOString()).toBe('2025-03-11T04:30:00.000Z');
  });
  it('crosses the spring-forward night in New York: 09:00 EDT, 23 hours after 10:00 EST the day before', () => {
    // 2025-03-09 02:00 EST jumps to 03:00 EDT.
    const at = new Date('2025-03-09T02:00:00Z'); // 21:00 EST on the 8th
    expect(nextOpenTime(at, window, 'America/New_York').toISOString()).toBe('2025-03-09T13:00:00.000Z'); // 09:00 EDT
  });
  it('crosses the fall-back night in London: 09:00 GMT after 21:00 BST', () => {
    // 2025-10-26 02:00 BST falls back to 01:00 GMT.
    const at = new Date('2025-10-25T20:00:00Z'); // 21:00 BST
    expect(nextOpenTime(at, window, 'Europe/London').toISOString()).toBe('2025-10-26T09:00:00.000Z');
  });
  it('finds the first instant after a gap when the opening hour is skipped', () => {
    // America/Santiago: 2024-09-08 00:00 -04 jumps to 01:00 -03; local midnight never shows.
    const start = zonedHourStart({ year: 2024, month: 9, day: 8 }, 0, 'America/Santiago');
    expect(start.toISOString()).toBe('2024-09-08T04:00:00.000Z');
    expect(localTime(start, 'America/Santiago')).toMatchObject({ day: 8, hour: 1, minute: 0 });
  });
  it('takes the first of two repeated hours on a fall-back night', () => {
    // New York 2025-11-02: 01:00 happens twice (EDT, then EST).
    expect(zonedHourStart({ year: 2025, month: 11, day: 2 }, 1, 'America/New_York').toISOString()).toBe('2025-11-02T05:00:00.000Z');
  });
  it('refuses an empty window', () => {
    expect(() => nextOpenTime(new Date(), { startHour: 12, endHour: 12 }, 'UTC')).toThrow(RangeError);
  });
});
