import { timesInZone, zoneNote } from '../../../src/cli/cliClock';

describe("the CLI's one clock", () => {
  it("prints every API timestamp in the workspace's zone, deep in records and lists, and says whether there was one", () => {
    const answer = {
      items: [{ state_at: '2026-11-27T07:43:05.000000+00:00', name: 'Asha', calls: [{ placed_at: '2026-11-27T07:43:05Z' }] }],
      updated_at: '2026-11-27T07:43:05.123Z',
      due_date: '2026-11-27',
      note: 'at 2026-11-27T07:43:05Z in words',
    };
    expect(timesInZone(answer, 'Asia/Kolkata')).toEqual({
      changed: true,
      value: {
        items: [{ state_at: '2026-11-27 13:13:05', name: 'Asha', calls: [{ placed_at: '2026-11-27 13:13:05' }] }],
        updated_at: '2026-11-27 13:13:05',
        // A calendar date is a day, not an instant; a time inside a sentence is left as written.
        due_date: '2026-11-27',
        note: 'at 2026-11-27T07:43:05Z in words',
      },
    });
    expect(timesInZone({ name: 'x', n: 3, none: null }, 'Asia/Kolkata')).toEqual({ changed: false, value: { name: 'x', n: 3, none: null } });
    expect(zoneNote('Asia/Kolkata')).toBe("(times in Asia/Kolkata, the workspace's time zone)");
  });
});
