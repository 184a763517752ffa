/** Small SVG charts drawn from numbers the page already has; each carries a text alternative. */

const SERIES_COLOURS = ['#1f5fbf', '#17803d', '#7a3db8', '#b3261e', '#8a6d00'];

export interface Series {
  name: string;
  points: number[];
}

/** Counters over time: one line per series, shared scale, with a legend. */
export function LineChart({ label, times, series }: { label: string; times: number[]; series: Series[] }) {
  const width = 640;
  const height = 200;
  const pad = 28;
  const max = Math.max(1, ...series.flatMap((s) => s.points));
  const first = times[0] ?? 0;
  const span = Math.max(1, (times[times.length - 1] ?? first) - first);
  const x = (t: number) => pad + ((t - first) / span) * (width - 2 * pad);
  const y = (v: number) => height - pad - (v / max) * (height - 2 * pad);
  const last = series.map((s) => `${s.name} ${s.points[s.points.length - 1] ?? 0}`).join(', ');
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${last}`}>
        <line x1={pad} y1={height - pad} x2={width - pad} y2={height - pad} stroke="#555" />
        <line x1={pad} y1={pad} x2={pad} y2={height - pad} stroke="#555" />
        <text x={4} y={pad} font-size="11" fill="#222">
          {max}
        </text>
        {series.map((s, i) => (
          <g key={s.name} stroke={SERIES_COLOURS[i % SERIES_COLOURS.length]} fill={SERIES_COLOURS[i % SERIES_COLOURS.length]}>
            <polyline fill="none" stroke-width="2" points={s.points.map((v, j) => `${x(times[j] ?? first)},${y(v)}`).join(' ')} />
            {/* A marker per point, so a single point (one minute of a run) still shows. */}
            {s.points.map((v, j) => (
              <circle key={j} cx={x(times[j] ?? first)} cy={y(v)} r="3" />
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        {label}:{' '}
        {series.map((s, i) => (
          <span key={s.name} class="legend">
            <span class="swatch" style={{ background: SERIES_COLOURS[i % SERIES_COLOURS.length] }} aria-hidden="true" />
            {s.name} {s.points[s.points.length - 1] ?? 0}
          </span>
        ))}
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
