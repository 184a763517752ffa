import { campaignChartData, PROJECTION_MAX_MS } from '../../../api/console/web/src/campaignChart';

const LAUNCH = '2026-11-25T10:00:20.000Z';
const at = (iso: string) => Date.parse(iso);

describe('the campaign chart’s data (api/console/web/src/campaignChart.ts)', () => {
  it('one minute of data draws as lines from the launch to now, not a column of dots at one instant', () => {
    const data = campaignChartData({
      channel: 'whatsapp',
      recipients: 40,
      launchedAt: LAUNCH,
      completedAt: null,
      states: { queued: 30, sent: 8, delivered: 2, read: 0, failed: 0, skipped: 0 },
      // The run counted once, in the minute from 10:00 (before the launch's second 20 ends that minute).
      timeline: [{ at: '2026-11-25T10:00:00.000Z', queued: 35, sent: 5, delivered: 0, read: 0, failed: 0, skipped: 0 }],
      nowMs: at('2026-11-25T10:00:45.000Z'),
      eta: null,
    });
    // Launch, the minute's count (at its end, clamped to now), and now: the count and now coincide, the later stands.
    expect(data.times).toEqual([at(LAUNCH), at('2026-11-25T10:00:45.000Z')]);
    expect(new Set(data.times).size).toBe(data.times.length);
    expect(Object.fromEntries(data.series.map((s) => [s.name, s.points]))).toEqual({
      reached: [0, 10],
      // The funnel: sent includes delivered and read.
      sent: [0, 10],
      delivered: [0, 2],
      read: [0, 0],
      failed: [0, 0],
      skipped: [0, 0],
    });
  });

  it('places each minute’s count at the minute’s end, in time order, and ends a finished run at its completion', () => {
    const data = campaignChartData({
      channel: 'voice',
      recipients: 3,
      launchedAt: LAUNCH,
      completedAt: '2026-11-25T10:02:30.000Z',
      states: { queued: 0, calling: 0, called: 3, failed: 0, skipped: 0 },
      timeline: [
        { at: '2026-11-25T10:01:00.000Z', queued: 1, calling: 1, called: 1, failed: 0, skipped: 0 },
        { at: '2026-11-25T10:00:00.000Z', queued: 2, calling: 1, called: 0, failed: 0, skipped: 0 },
      ],
      nowMs: at('2026-11-25T11:00:00.000Z'),
      eta: '2026-11-25T10:30:00.000Z',
    });
    expect(data.times).toEqual([at(LAUNCH), at('2026-11-25T10:00:59.999Z'), at('2026-11-25T10:01:59.999Z'), at('2026-11-25T10:02:30.000Z')]);
    expect(data.series.map((s) => s.name)).toEqual(['reached', 'called', 'on a call or owed a call-back', 'failed', 'skipped']);
    expect(data.series[0]!.points).toEqual([0, 1, 2, 3]);
  });

  it('a sending run’s finish estimate is a dashed line from now to everyone reached; none past 12 hours or before launch', () => {
    const input = {
      channel: 'whatsapp' as const,
      recipients: 100,
      launchedAt: LAUNCH,
      completedAt: null,
      states: { queued: 60, sent: 40 },
      timeline: [],
      nowMs: at('2026-11-25T10:05:00.000Z'),
      eta: '2026-11-25T10:15:00.000Z',
    };
    const data = campaignChartData(input);
    expect(data.times).toEqual([at(LAUNCH), at('2026-11-25T10:05:00.000Z'), at('2026-11-25T10:15:00.000Z')]);
    expect(data.series.at(-1)).toEqual({ name: 'reached, projected', dashed: true, points: [null, 40, 100] });
    expect(data.series[0]!.points).toEqual([0, 40, null]);
    const far = new Date(input.nowMs + PROJECTION_MAX_MS + 60_000).toISOString();
    expect(campaignChartData({ ...input, eta: far }).series.map((s) => s.name)).not.toContain('reached, projected');
    expect(campaignChartData({ ...input, launchedAt: null })).toEqual({ times: [], series: [] });
  });
});
