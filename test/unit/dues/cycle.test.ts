import { addDays, dueDateOf, isCalendarDate, periodLabel, zoneDate, type Plan } from '../../../src/dues/cycle';

const plan = (p: Partial<Plan>): Plan => ({ cycle_unit: 'monthly', cycle_days: null, due_day: null, start_date: '2026-01-15', ...p });
const dates = (p: Plan, n: number) => Array.from({ length: n }, (_, i) => dueDateOf(p, i));

describe('the n-th due date of a plan', () => {
  it('weekly: every seven days from the start date, across months and years', () => {
    expect(dates(plan({ cycle_unit: 'weekly', start_date: '2026-12-17' }), 4)).toEqual(['2026-12-17', '2026-12-24', '2026-12-31', '2027-01-07']);
  });

  it('weekly and custom_days ignore due_day (it names a day of the month)', () => {
    expect(dates(plan({ cycle_unit: 'weekly', due_day: 3, start_date: '2026-03-01' }), 2)).toEqual(['2026-03-01', '2026-03-08']);
    expect(dates(plan({ cycle_unit: 'custom_days', cycle_days: 10, due_day: 3, start_date: '2026-03-01' }), 2)).toEqual(['2026-03-01', '2026-03-11']);
  });

  it('custom_days: every cycle_days days, up to 730', () => {
    expect(dates(plan({ cycle_unit: 'custom_days', cycle_days: 45, start_date: '2026-01-01' }), 3)).toEqual(['2026-01-01', '2026-02-15', '2026-04-01']);
    expect(dueDateOf(plan({ cycle_unit: 'custom_days', cycle_days: 730, start_date: '2026-01-01' }), 1)).toBe('2028-01-01');
    expect(() => dueDateOf(plan({ cycle_unit: 'custom_days', cycle_days: null }), 1)).toThrow(RangeError);
  });

  it('monthly: the start date, then the same day each month', () => {
    expect(dates(plan({ start_date: '2026-01-15' }), 13)).toEqual([
      '2026-01-15', '2026-02-15', '2026-03-15', '2026-04-15', '2026-05-15', '2026-06-15', '2026-07-15',
      '2026-08-15', '2026-09-15', '2026-10-15', '2026-11-15', '2026-12-15', '2027-01-15',
    ]);
  });

  it('monthly on due_day 31: the last day of February (28, and 29 in a leap year) and of 30-day months, then back to 31', () => {
    expect(dates(plan({ start_date: '2026-01-31', due_day: 31 }), 6)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30']);
    expect(dueDateOf(plan({ start_date: '2028-01-31', due_day: 31 }), 1)).toBe('2028-02-29');
  });

  it('monthly without due_day anchors on the start date\'s day, never drifting after a short month', () => {
    expect(dates(plan({ start_date: '2026-01-30' }), 3)).toEqual(['2026-01-30', '2026-02-28', '2026-03-30']);
  });

  it('monthly with a due_day other than the start date\'s day: the first due is the start date, later ones on due_day', () => {
    expect(dates(plan({ start_date: '2026-01-20', due_day: 5 }), 3)).toEqual(['2026-01-20', '2026-02-05', '2026-03-05']);
  });

  it('quarterly, half_yearly and yearly step 3, 6 and 12 months', () => {
    expect(dates(plan({ cycle_unit: 'quarterly', start_date: '2026-11-30', due_day: 30 }), 4)).toEqual(['2026-11-30', '2027-02-28', '2027-05-30', '2027-08-30']);
    expect(dates(plan({ cycle_unit: 'half_yearly', start_date: '2026-08-31', due_day: 31 }), 3)).toEqual(['2026-08-31', '2027-02-28', '2027-08-31']);
    expect(dates(plan({ cycle_unit: 'yearly', start_date: '2028-02-29' }), 3)).toEqual(['2028-02-29', '2029-02-28', '2030-02-28']);
  });
});

describe('period labels', () => {
  it('month and year for monthly, quarterly, half-yearly and yearly plans', () => {
    for (const unit of ['monthly', 'quarterly', 'half_yearly', 'yearly'] as const) expect(periodLabel(unit, '2026-03-31')).toBe('March 2026');
  });

  it('a day-month-year date for weekly and custom cycles', () => {
    expect(periodLabel('weekly', '2026-03-07')).toBe('7 March 2026');
    expect(periodLabel('custom_days', '2026-12-25')).toBe('25 December 2026');
  });
});

describe('dates', () => {
  it('today is the zone\'s wall-clock date', () => {
    const at = new Date('2026-03-31T20:00:00Z');
    expect(zoneDate(at, 'UTC')).toBe('2026-03-31');
    expect(zoneDate(at, 'Asia/Kolkata')).toBe('2026-04-01');
    expect(zoneDate(at, 'America/Los_Angeles')).toBe('2026-03-31');
  });

  it('calendar dates only', () => {
    expect(isCalendarDate('2026-02-28')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-13-01')).toBe(false);
    expect(isCalendarDate('2026-1-01')).toBe(false);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});
