import { timesInZone, withZoneNote, zoneNote } from '../../../src/cli/cliClock';

describe("the CLI's one clock (issue 35 §2)", () => {
  it("shows every API timestamp in the workspace's zone, deep in records and lists; a calendar date and a time inside words stay as they are", () => {
    const answer = {
      items: [{ state_at: '2026-11-27T07:43:05.000000+00:00', name: 'Asha', calls: [{ placed_at: '2026-11-27T07:43:05Z' }] }],
      updated_at: '2026-11-27T08:00:00.123Z',
      due_date: '2026-11-27',
      note: 'at 2026-11-27T07:43:05Z in words',
    };
    const clock = timesInZone(answer, 'Asia/Kolkata');
    expect(clock.value).toEqual({
      items: [{ state_at: '2026-11-27 13:13:05', name: 'Asha', calls: [{ placed_at: '2026-11-27 13:13:05' }] }],
      updated_at: '2026-11-27 13:30:00',
      due_date: '2026-11-27',
      note: 'at 2026-11-27T07:43:05Z in words',
    });
    expect([...clock.shown]).toEqual(['2026-11-27 13:13:05', '2026-11-27 13:30:00']);
  });

  it('names the zone once under the output, only when the output shows one of the times', () => {
    const clock = timesInZone({ at: '2026-11-27T07:43:05Z' }, 'America/New_York');
    expect(withZoneNote('at  2026-11-27 02:43:05', clock)).toBe("at  2026-11-27 02:43:05\n(times in America/New_York, the workspace's time zone)");
    expect(withZoneNote('list_id  lst_1', clock)).toBe('list_id  lst_1');
    expect(zoneNote('Asia/Kolkata')).toBe("(times in Asia/Kolkata, the workspace's time zone)");
  });
});
