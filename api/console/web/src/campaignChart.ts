/**
 * The campaign page's chart data, from the run's timeline (recipients by state, a point per
 * minute it counted) and the campaign as just read. No JSX, no DOM: unit-tested in
 * test/unit/console/campaignChart.test.ts.
 *
 * The line starts at the launch (everyone queued) and ends now (or when the run ended) with
 * the counts just read, so a run of one minute, whose timeline is one point, draws as lines
 * from the launch to now, not as a column of dots at one instant. Each timeline point is
 * placed at the end of its minute (its count was taken within it), never before the launch
 * nor after the end.
 */

export interface TimelinePoint {
  at: string;
  [state: string]: number | string;
}

export interface ChartSeries {
  name: string;
  /** One value per time; null where the series has none (the projection). */
  points: (number | null)[];
  dashed?: boolean;
}

export interface ChartData {
  /** Epoch ms, ascending. */
  times: number[];
  series: ChartSeries[];
}

export interface CampaignChartInput {
  channel: 'whatsapp' | 'voice';
  recipients: number;
  launchedAt: string | null;
  /** Set once the campaign is finished. */
  completedAt: string | null;
  /** Recipients by state, as just read. */
  states: Record<string, number>;
  timeline: readonly TimelinePoint[];
  nowMs: number;
  /** The explanation's finish estimate, drawn as a dashed line from now while sending. */
  eta: string | null;
}

/** Each line and the states it adds up: reached (everyone no longer queued), then the channel's own. */
const LINES: Record<CampaignChartInput['channel'], [string, string[]][]> = {
  // The funnel: sent includes delivered and read, delivered includes read.
  whatsapp: [
    ['sent', ['sent', 'delivered', 'read']],
    ['delivered', ['delivered', 'read']],
    ['read', ['read']],
    ['failed', ['failed']],
    ['skipped', ['skipped']],
  ],
  voice: [
    ['called', ['called']],
    ['on a call or owed a call-back', ['calling']],
    ['failed', ['failed']],
    ['skipped', ['skipped']],
  ],
};

/** A projection further out than this is left to the words: the run's own line would shrink to a sliver. */
export const PROJECTION_MAX_MS = 12 * 3_600_000;
const MINUTE_MS = 60_000;

export function campaignChartData(input: CampaignChartInput): ChartData {
  if (!input.launchedAt) return { times: [], series: [] };
  const launched = Date.parse(input.launchedAt);
  const sorted = [...input.timeline].sort((a, b) => a.at.localeCompare(b.at));
  const lastCount = sorted.length > 0 ? Date.parse(sorted[sorted.length - 1]!.at) + MINUTE_MS - 1 : launched;
  // A finished run ends at its completion, or at its last count (late statuses) if later, never after now.
  const end = input.completedAt ? Math.min(input.nowMs, Math.max(Date.parse(input.completedAt), lastCount)) : input.nowMs;

  const moments: { t: number; states: Record<string, number | string> }[] = [{ t: launched, states: { queued: input.recipients } }];
  const add = (t: number, states: Record<string, number | string>) => {
    const at = Math.min(end, Math.max(launched, t));
    const last = moments[moments.length - 1]!;
    // Two counts at one instant: the later one stands (a line, not a vertical step of dots).
    if (at <= last.t && moments.length > 1) last.states = states;
    else if (at > last.t) moments.push({ t: at, states });
  };
  for (const point of sorted) add(Date.parse(point.at) + MINUTE_MS - 1, point);
  add(end, input.states);

  const sum = (states: Record<string, number | string>, keys: string[]) => keys.reduce((n, k) => n + (Number(states[k]) || 0), 0);
  const reached = (states: Record<string, number | string>) =>
    Object.entries(states).reduce((n, [k, v]) => (k === 'queued' || k === 'at' ? n : n + (Number(v) || 0)), 0);
  const times = moments.map((m) => m.t);
  const series: ChartSeries[] = [
    { name: 'reached', points: moments.map((m) => reached(m.states)) },
    ...LINES[input.channel].map(([name, keys]) => ({ name, points: moments.map((m) => sum(m.states, keys)) as (number | null)[] })),
  ];

  const eta = input.eta ? Date.parse(input.eta) : null;
  if (!input.completedAt && eta !== null && eta > end && eta - end <= PROJECTION_MAX_MS) {
    times.push(eta);
    for (const s of series) s.points.push(null);
    const last = series[0]!.points[series[0]!.points.length - 2]!;
    series.push({ name: 'reached, projected', dashed: true, points: times.map((t, i) => (i === times.length - 1 ? input.recipients : t === end ? last : null)) });
  }
  return { times, series };
}
