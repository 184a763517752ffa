import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartSeries } from '../campaignChart';

/**
 * Charts: counts over time drawn by uPlot (canvas, real time axis and scale) in a Preact
 * wrapper that sizes it to its container; counts per label as plain HTML bars. Each carries
 * a text alternative: the caption names the axes and gives each line's latest value.
 */

const SERIES_COLOURS = ['#1f5fbf', '#17803d', '#7a3db8', '#b3261e', '#8a6d00', '#00727a', '#555555'];
const colour = (i: number) => SERIES_COLOURS[i % SERIES_COLOURS.length]!;
/** People are whole: the count axis steps by these. */
const COUNT_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 25_000, 50_000];

/** The time axis's tick labels in the zone, 24-hour: seconds for a few minutes, the date past a day. */
function timeTicks(timeZone: string): (u: uPlot, splits: number[]) => string[] {
  const format = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('en-GB', { timeZone, hourCycle: 'h23', ...options });
  const seconds = format({ hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const minutes = format({ hour: '2-digit', minute: '2-digit' });
  const days = format({ day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  return (u, splits) => {
    const span = (u.scales.x!.max ?? 0) - (u.scales.x!.min ?? 0);
    const f = span > 86_400 ? days : span <= 10 * 60 ? seconds : minutes;
    return splits.map((s) => f.format(new Date(s * 1000)));
  };
}
const heightFor = (width: number) => (width < 500 ? 200 : 260);

export interface TimeChartProps {
  label: string;
  /** Epoch ms, ascending. */
  times: number[];
  series: ChartSeries[];
  /** The zone the time axis reads in (the workspace's). */
  timeZone: string;
  yLabel: string;
  /** The top of the scale (a campaign's recipients), so progress reads against the whole. */
  yMax?: number;
  /** The time axis's span, epoch ms (a day's chart spans the day); absent, the data's own span. */
  xSpan?: [number, number];
}

/**
 * Counts over time: one line per series on a time axis in `timeZone`, a dashed line for a
 * projection. uPlot draws into a canvas the width of the wrapper, redrawn as that changes
 * (a phone turned, a window resized); new data is handed over without rebuilding the chart.
 */
export function TimeChart({ label, times, series, timeZone, yLabel, yMax, xSpan }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const data: uPlot.AlignedData = [times.map((t) => t / 1000), ...series.map((s) => s.points)];
  const xLabel = `Time (${timeZone})`;
  // A new chart only when the lines, the zone or the scale change; otherwise only the data.
  const shape = `${series.map((s) => s.name).join('|')}|${timeZone}|${yLabel}|${yMax ?? ''}|${xSpan?.join('-') ?? ''}`;

  useEffect(() => {
    const el = box.current!;
    const width = Math.max(200, el.clientWidth);
    const options: uPlot.Options = {
      width,
      height: heightFor(width),
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), timeZone),
      scales: {
        // The run's own span with a little room either side: a two-second run spans the chart as a two-second run.
        x: {
          time: true,
          range: (_u, min, max) => {
            // A fixed span, or the data's: a single point would otherwise leave uPlot a scale of years.
            if (xSpan) return [xSpan[0] / 1000, xSpan[1] / 1000];
            const pad = Math.max(1, (max - min) * 0.03);
            return [min - pad, max + pad];
          },
        },
        y: { range: (_u, _min, max) => [0, Math.max(1, yMax ?? 0, max) * 1.05] },
      },
      axes: [
        // Dated ticks ("27 Nov, 08:00") need more room than times of day, or they run together.
        { label: xLabel, stroke: '#222', grid: { stroke: '#eee' }, values: timeTicks(timeZone), space: (_u, _axis, min, max) => (max - min > 86_400 ? 110 : 70) },
        { label: yLabel, stroke: '#222', grid: { stroke: '#eee' }, incrs: COUNT_STEPS },
      ],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.name,
          stroke: colour(i),
          width: 2,
          ...(s.dashed ? { dash: [6, 4] } : {}),
          points: { show: true, size: 5 },
          spanGaps: true,
        })),
      ],
    };
    plot.current = new uPlot(options, data, el);
    const observer = new ResizeObserver(() => {
      const w = Math.max(200, el.clientWidth);
      if (plot.current && w !== plot.current.width) plot.current.setSize({ width: w, height: heightFor(w) });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  const latest = (s: ChartSeries) => [...s.points].reverse().find((v) => v !== null) ?? 0;
  const summary = series.map((s) => `${s.name} ${latest(s)}`).join(', ');
  return (
    <figure class="chart" data-x-label={xLabel} data-y-label={yLabel}>
      <div ref={box} class="chart-canvas" role="img" aria-label={`${label}. Across: ${xLabel}. Up: ${yLabel}. Latest: ${summary}.`} />
      <figcaption>
        <span class="chart-title">{label}</span>{' '}
        <span class="chart-axes">
          (across: {xLabel}; up: {yLabel})
        </span>
        <span class="chart-legend">
          {series.map((s, i) => (
            <span key={s.name} class="legend">
              <span class={`swatch${s.dashed ? ' dashed' : ''}`} style={{ background: s.dashed ? 'transparent' : colour(i), borderColor: colour(i) }} aria-hidden="true" />
              {s.name} {latest(s)}
            </span>
          ))}
        </span>
      </figcaption>
    </figure>
  );
}

/** Counts per label as horizontal bars (choices, yes/no, dispositions, the funnel, a number's histogram buckets). */
export function Bars({ label, counts }: { label: string; counts: [string, number][] }) {
  const max = Math.max(1, ...counts.map(([, n]) => n));
  return (
    <figure class="bars">
      <figcaption>{label}</figcaption>
      <table>
        <tbody>
          {counts.map(([name, n]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>
                <span class="bar" style={{ width: `${(n / max) * 100}%` }} aria-hidden="true" />
              </td>
              <td class="num">{n}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
