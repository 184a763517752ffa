import { fieldValue, formatCalendarDate, formatInZone, formatShortInZone, MISSING, turnLabel, wallTimeInZone } from '../../../api/console/web/src/format';

describe("the web console's wording", () => {
  it('shows a yes/no answer as Yes or No, a missing value as a dash, and others as they are', () => {
    expect(fieldValue(true)).toBe('Yes');
    expect(fieldValue(false)).toBe('No');
    expect(fieldValue(null)).toBe(MISSING);
    expect(fieldValue(undefined)).toBe('—');
    expect(fieldValue(4)).toBe('4');
    expect(fieldValue(0)).toBe('0');
    expect(fieldValue('')).toBe('');
    expect(fieldValue('Tuesday')).toBe('Tuesday');
    expect(fieldValue(['red', 'blue'])).toBe('["red","blue"]');
  });

  it("labels the business's campaign and template messages apart from a team member's reply and the AI agent", () => {
    expect(turnLabel({ role: 'human', campaign_id: 'cmp_1', template: 'order_update' })).toBe('Business');
    expect(turnLabel({ role: 'human', campaign_id: null, template: 'order_update' })).toBe('Business');
    expect(turnLabel({ role: 'human', campaign_id: 'cmp_1', template: null })).toBe('Business');
    expect(turnLabel({ role: 'human', campaign_id: null, template: null })).toBe('Team member');
    expect(turnLabel({ role: 'human' })).toBe('Team member');
    expect(turnLabel({ role: 'model' })).toBe('AI agent');
    expect(turnLabel({ role: 'user' })).toBe('Customer');
    expect(turnLabel({ role: 'human', kind: 'trail', template: 'order_update' })).toBe('Trail');
    expect(turnLabel({ role: 'system' })).toBe('system');
  });
});

describe("the web console's one clock (issue 35 §2)", () => {
  it("shows a moment in the workspace's zone, never the browser's", () => {
    expect(formatInZone('2026-11-27T07:43:05Z', 'Asia/Kolkata')).toBe('27 Nov 2026, 13:13');
    expect(formatInZone('2026-11-27T07:43:05Z', 'America/New_York')).toBe('27 Nov 2026, 02:43');
    expect(formatShortInZone('2026-11-27T07:43:05Z', 'Asia/Kolkata')).toBe('Fri 27 Nov, 13:13');
    // A due date is a day in the workspace's zone already: shown as that day wherever the browser is.
    expect(formatCalendarDate('2026-11-27')).toBe('27 Nov 2026');
  });

  it("reads the form's start time in the workspace's zone, across a daylight-saving change", () => {
    expect(wallTimeInZone('2026-11-28T10:00', 'Asia/Kolkata')!.toISOString()).toBe('2026-11-28T04:30:00.000Z');
    expect(wallTimeInZone('2026-03-08T12:00', 'America/New_York')!.toISOString()).toBe('2026-03-08T16:00:00.000Z');
    expect(wallTimeInZone('2026-03-07T12:00', 'America/New_York')!.toISOString()).toBe('2026-03-07T17:00:00.000Z');
    expect(wallTimeInZone('tomorrow', 'UTC')).toBeNull();
  });
});
