import { campaignEta, formatZonedStamp, formatZonedTime } from '../campaigns';

/**
 * `campaigns watch <workspace> <campaign>`: reads the campaign (the console's GET, with live
 * counters) every few seconds and draws a progress bar, the counters and an estimated finish
 * time until the campaign ends. On a terminal the drawing is redrawn in place; otherwise
 * (a pipe, a log) one plain line is printed whenever something changed.
 *
 * Counters are read generically: the five message counters first, then any other number the
 * read model carries (call campaigns add their own), so a new counter shows without a change here.
 * The counters are a funnel (`delivered` within `sent`), so progress comes from the console's
 * `states` (recipients by state): everyone not `queued` is processed. What the run is doing
 * and why is the console's `explanation` (src/campaigns/runExplanation.ts), shown as it comes;
 * the finish estimate is the console's own (src/campaigns/estimate.ts `campaignEta`) at the
 * rate this watch sees, in the workspace's zone.
 */

/** The console's `explanation` of a campaign's run, as far as the CLI shows it. */
export interface WatchedExplanation {
  state: string;
  headline: string;
  details: string[];
  fix: string | null;
  time_zone: string;
}

export interface WatchedCampaign {
  campaign_id: string;
  name: string;
  status: string;
  version: number;
  recipients: number;
  counters?: Record<string, unknown>;
  /** The console's recipients by state (`queued`, `sent`, …; a call campaign's `calling`, `called`, …). */
  states?: Record<string, unknown>;
  /** A call campaign's call progress (dialled, answered, conversation, completed, call_backs, live). */
  calls?: Record<string, unknown>;
  schedule?: { start_at: string | null; timezone: string; throttle_per_minute: number; send_window_start_hour: number; send_window_end_hour: number };
  explanation?: WatchedExplanation;
  [field: string]: unknown;
}

/** Statuses after which nothing more is sent. */
export const FINISHED_STATUSES = new Set(['completed', 'failed', 'cancelled', 'archived']);
const PROGRESS_COUNTERS = ['sent', 'delivered', 'read', 'failed', 'skipped'];
/** Top-level numbers that are not counters. */
const NOT_COUNTERS = new Set(['version', 'recipients', 'explanation']);
/** The funnel's counters that each count a person once (`delivered` and `read` are within `sent`). */
const ONCE_EACH = ['sent', 'failed', 'skipped'];

const numbersIn = (source: Record<string, unknown>) => Object.entries(source).filter((e): e is [string, number] => typeof e[1] === 'number');

/**
 * Every counter, message ones first, from `counters` (or, failing that, the record's top
 * level), then a call campaign's call progress as `calls.<name>`.
 */
export function countersOf(campaign: WatchedCampaign): [string, number][] {
  const source = campaign.counters ?? Object.fromEntries(Object.entries(campaign).filter(([k]) => !NOT_COUNTERS.has(k)));
  const numeric = numbersIn(source);
  const known = PROGRESS_COUNTERS.flatMap((name) => numeric.filter(([k]) => k === name));
  const calls = campaign.calls && typeof campaign.calls === 'object' ? numbersIn(campaign.calls).map(([k, n]): [string, number] => [`calls.${k}`, n]) : [];
  return [...known, ...numeric.filter(([k]) => !PROGRESS_COUNTERS.includes(k)), ...calls];
}

/**
 * Recipients no longer queued: from `states` when the reading has them, else (a record
 * without them) `sent` + `failed` + `skipped`, at most the recipients (a message that went out
 * and then failed is in both `sent` and `failed`).
 */
export function processedOf(campaign: WatchedCampaign): number {
  const queued = campaign.states?.queued;
  if (typeof queued === 'number') return Math.max(0, campaign.recipients - queued);
  const counted = countersOf(campaign)
    .filter(([k]) => ONCE_EACH.includes(k))
    .reduce((sum, [, n]) => sum + n, 0);
  return Math.min(campaign.recipients, counted);
}

export function progressBar(done: number, total: number, width: number): string {
  const share = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
}

const group = (n: number) => n.toLocaleString('en-US');

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s % 60}s`;
  return `${s}s`;
}

/** A sample of progress, to measure the rate actually achieved. */
export interface ProgressSample {
  atMs: number;
  processed: number;
}

/** Sends a minute over the samples of the last `spanMs`, or null until they span 10 s. */
export function observedPerMinute(samples: ProgressSample[], spanMs = 60_000): number | null {
  const last = samples.at(-1);
  if (!last) return null;
  const first = samples.find((s) => last.atMs - s.atMs <= spanMs) ?? last;
  const elapsed = last.atMs - first.atMs;
  if (elapsed < 10_000) return null;
  return ((last.processed - first.processed) / elapsed) * 60_000;
}

/**
 * What the finish estimate says: done, paused, waiting, or the time of the last send at the
 * throttle (or the rate seen, when lower) inside the send window, in the workspace's zone.
 */
export function finishEstimate(campaign: WatchedCampaign, now: Date, observed: number | null): string {
  const remaining = Math.max(0, campaign.recipients - processedOf(campaign));
  if (FINISHED_STATUSES.has(campaign.status)) return `finished (${campaign.status})`;
  if (campaign.status === 'draft') return 'not launched';
  if (campaign.status === 'paused') return `paused with ${group(remaining)} to go`;
  if (remaining === 0) return 'every recipient sent; completing';
  const schedule = campaign.schedule;
  if (!schedule) return 'unknown (no schedule)';
  const eta = campaignEta({
    remaining,
    throttlePerMinute: schedule.throttle_per_minute,
    observedPerMinute: observed,
    schedule: { ...schedule, start_at: schedule.start_at ? new Date(schedule.start_at) : null },
    now,
  });
  if (!eta.at) return 'unknown';
  const zone = campaign.explanation?.time_zone ?? schedule.timezone;
  return `${formatZonedTime(eta.at, zone, now)}, in ${formatDuration(eta.at.getTime() - now.getTime())} at ${Math.round(eta.perMinute)}/min${eta.observed ? ' seen' : ''}`;
}

/** The explanation as lines: what the run is doing, each further sentence, and the fix. */
export function explanationLines(explanation: WatchedExplanation | undefined): string[] {
  if (!explanation) return [];
  return [`now: ${explanation.headline}`, ...explanation.details.map((d) => `     ${d}`), ...(explanation.fix ? [`fix: ${explanation.fix}`] : [])];
}

/**
 * `campaigns show` and `create` for a person: the explanation first, then the record's aligned
 * lines with each counter once (issue 35 §10). The record carries the funnel three ways (its
 * own `sent`…`skipped`, `counters.*` the same numbers again, and `states.*` the people by
 * state): a person reads the funnel once and, of the states, only `queued` (everyone not yet
 * counted in it), shown after the recipients. `--json` keeps all three.
 */
export function formatCampaignForPerson(body: Record<string, unknown>, human: (record: Record<string, unknown>) => string): string {
  const { explanation, counters: _sameAsTheFunnel, states, ...record } = body as WatchedCampaign;
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    shown[key] = value;
    if (key === 'recipients' && states?.queued !== undefined) shown.queued = states.queued;
  }
  const lines = explanationLines(explanation);
  return [...lines, ...(lines.length > 0 ? [''] : []), human(shown)].join('\n');
}

export interface RenderOptions {
  now: Date;
  observed: number | null;
  /** Terminal columns; the bar takes what is left, 10 to 40 characters. */
  columns: number;
}

/** The drawing for a terminal: title, bar, counters, estimate, then what the run is doing. */
export function renderWatch(campaign: WatchedCampaign, options: RenderOptions): string[] {
  const processed = processedOf(campaign);
  const barWidth = Math.max(10, Math.min(40, options.columns - 40));
  const queued = Math.max(0, campaign.recipients - processed);
  return [
    `${campaign.name} (${campaign.campaign_id})  ${campaign.status}  version ${campaign.version}`,
    `${progressBar(processed, campaign.recipients, barWidth)}  ${group(processed)} of ${group(campaign.recipients)} recipients`,
    [...countersOf(campaign).map(([k, n]) => `${k} ${group(n)}`), `queued ${group(queued)}`].join('  '),
    `finish: ${finishEstimate(campaign, options.now, options.observed)}`,
    ...explanationLines(campaign.explanation),
  ];
}

/** One line for a pipe or a log, stamped in the zone the rest of the line speaks (the workspace's), never UTC beside it. */
export function renderPlain(campaign: WatchedCampaign, options: Omit<RenderOptions, 'columns'>): string {
  const zone = campaign.explanation?.time_zone ?? campaign.schedule?.timezone ?? 'UTC';
  const processed = processedOf(campaign);
  const share = campaign.recipients > 0 ? Math.floor((processed / campaign.recipients) * 100) : 0;
  const counters = countersOf(campaign).map(([k, n]) => `${k}=${n}`).join(' ');
  const now = campaign.explanation ? ` | ${campaign.explanation.headline}` : '';
  return `${formatZonedStamp(options.now, zone)} (${zone}) ${campaign.status} ${processed}/${campaign.recipients} (${share}%) ${counters} finish: ${finishEstimate(campaign, options.now, options.observed)}${now}`;
}

export interface WatchDeps {
  read: () => Promise<WatchedCampaign>;
  write: (text: string) => void;
  tty: boolean;
  columns: () => number;
  intervalMs: number;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

/** Draws until the campaign is finished; answers its last reading. */
export async function watchCampaign(deps: WatchDeps): Promise<WatchedCampaign> {
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const samples: ProgressSample[] = [];
  let drawn = 0;
  let lastPlain = '';
  for (;;) {
    const campaign = await deps.read();
    const at = now();
    samples.push({ atMs: at.getTime(), processed: processedOf(campaign) });
    while (samples.length > 2 && at.getTime() - samples[0]!.atMs > 120_000) samples.shift();
    const observed = campaign.status === 'running' ? observedPerMinute(samples) : null;
    if (deps.tty) {
      const lines = renderWatch(campaign, { now: at, observed, columns: deps.columns() });
      // Up over the last drawing and clear it, then draw again.
      deps.write(`${drawn > 0 ? `\x1b[${drawn}A\x1b[J` : ''}${lines.join('\n')}\n`);
      drawn = lines.length;
    } else {
      // A line when the status, a counter or the run's state moved (the estimate alone changing prints nothing).
      const key = `${campaign.status} ${campaign.explanation?.state ?? ''} ${JSON.stringify(countersOf(campaign))}`;
      if (key !== lastPlain) deps.write(`${renderPlain(campaign, { now: at, observed })}\n`);
      lastPlain = key;
    }
    if (FINISHED_STATUSES.has(campaign.status)) return campaign;
    await sleep(deps.intervalMs);
  }
}
