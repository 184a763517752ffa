import { type FieldValue, DISPOSITIONS, type Capture, type CaptureDisplay, type CaptureField, type Disposition } from '../../../calls';
import { callProgressOf } from '../callProgress';
import type { CampaignRecipientDoc } from '../../staging';

/** What the report reads of a person: their recipient document, or their row in an outcome chunk. */
export type OutcomeRow = Pick<CampaignRecipientDoc, 'position' | 'contact_id' | 'name' | 'to' | 'state' | 'calls' | 'outcome'>;

/**
 * A call campaign's outcome report (campaigns-tickets-dues §4 GET …/outcomes; its structure
 * is ours, docs/campaigns.md): totals, the funnel, the merged dispositions, a summary of every
 * capture field by its `display`, and a timeline by hour. Built by feeding people in position
 * order to `OutcomeReportBuilder`, which holds only the tallies (and a number field's values,
 * for its median). A builder's tallies can be kept as plain data (`tally()`, an
 * `OutcomeTally`) and added up again in position order (`absorb`): the run keeps one tally
 * per outcome chunk (chunks.ts), and the report adds those up instead of reading
 * every person.
 */

export const FUNNEL_STAGES = ['staged', 'dialled', 'answered', 'conversation', 'completed'] as const;
/** Text answers shown per text field. */
export const TEXT_SAMPLES = 10;
/** Buckets of a number field's distribution. */
export const NUMBER_BUCKETS = 10;

/** What `auto` means per type: how a dashboard draws the field. */
const AUTO_DISPLAY: Record<CaptureField['type'], Exclude<CaptureDisplay, 'auto'>> = {
  yes_no: 'donut',
  choice: 'bars',
  multi_choice: 'bars',
  rating: 'bars',
  number: 'stat',
  date: 'bars',
  text: 'list',
};

export function resolvedDisplay(field: CaptureField): Exclude<CaptureDisplay, 'auto'> {
  return field.display === 'auto' ? AUTO_DISPLAY[field.type] : field.display;
}

export type FieldSummary =
  | { kind: 'counts'; counts: Record<string, number>; mean?: number | null }
  | { kind: 'distribution'; count: number; min: number | null; max: number | null; mean: number | null; median: number | null; buckets: { from: number; to: number; count: number }[] }
  | { kind: 'samples'; samples: { position: number; value: string }[] };

export interface FieldReport {
  key: string;
  label: string;
  type: CaptureField['type'];
  /** The field's display with `auto` resolved; `hidden` fields carry no summary. */
  display: Exclude<CaptureDisplay, 'auto'>;
  answered: number;
  summary: FieldSummary | null;
}

export interface OutcomeReport {
  campaign_id: string;
  status: string;
  totals: {
    recipients: number;
    /** People whose outcome is final. */
    finished: number;
    /** People not yet called, or with a call live or a call-back owed. */
    outstanding: number;
    failed: number;
    skipped: number;
    calls: number;
    call_backs: number;
    answered: number;
    completed: number;
    /** People whose merged answers meet the capture's success rule. */
    success: number;
  };
  funnel: { stage: (typeof FUNNEL_STAGES)[number]; count: number; rate: number }[];
  dispositions: Record<Disposition, number>;
  fields: FieldReport[];
  /** Calls by the UTC hour they were placed in. */
  timeline: { hour: string; calls: number; answered: number; completed: number }[];
  generated_at: string;
}

const round = (n: number, places = 4) => Math.round(n * 10 ** places) / 10 ** places;

function answerText(value: FieldValue): string {
  if (Array.isArray(value)) return value.join('; ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/**
 * One field's tallies as stored: answers are values in lists, never field names, because an
 * answer (a choice, a date) may hold `.` or start with `$`, which a stored field name may not.
 * Lists of objects rather than of pairs: FerretDB is not relied on for nested arrays.
 */
export interface FieldTallyData {
  key: string;
  answered: number;
  /** Answer and how often, in order of first appearance. */
  counts: { value: string; n: number }[];
  /** Number and rating answers: value and how often, ascending. */
  numbers: { value: number; n: number }[];
  /** Text: the first `TEXT_SAMPLES` answers by position. */
  samples: { position: number; value: string }[];
}

type Totals = OutcomeReport['totals'];
type Funnel = Record<(typeof FUNNEL_STAGES)[number], number>;
type Hour = { calls: number; answered: number; completed: number };

/** A builder's tallies as plain data: what a chunk of people adds to the report. */
export interface OutcomeTally {
  totals: Totals;
  funnel: Funnel;
  dispositions: Record<Disposition, number>;
  fields: FieldTallyData[];
  /** Calls by UTC hour (`YYYY-MM-DDTHH:00:00Z`), in order of first appearance. */
  hours: ({ hour: string } & Hour)[];
}

class FieldTally {
  answered = 0;
  private readonly counts = new Map<string, number>();
  private readonly numbers: number[] = [];
  private readonly samples: { position: number; value: string }[] = [];

  constructor(readonly field: CaptureField) {
    if (field.type === 'yes_no') ['yes', 'no'].forEach((k) => this.counts.set(k, 0));
    if (field.type === 'choice' || field.type === 'multi_choice') field.options.forEach((o) => this.counts.set(o, 0));
    if (field.type === 'rating') ['1', '2', '3', '4', '5'].forEach((k) => this.counts.set(k, 0));
  }

  private bump(key: string) {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  add(position: number, value: FieldValue) {
    this.answered += 1;
    switch (this.field.type) {
      case 'yes_no':
        this.bump(value === true ? 'yes' : 'no');
        break;
      case 'choice':
      case 'date':
        this.bump(String(value));
        break;
      case 'multi_choice':
        for (const option of Array.isArray(value) ? value : [String(value)]) this.bump(option);
        break;
      case 'rating':
        this.bump(String(value));
        this.numbers.push(Number(value));
        break;
      case 'number':
        this.numbers.push(Number(value));
        break;
      case 'text':
        if (this.samples.length < TEXT_SAMPLES) this.samples.push({ position, value: answerText(value) });
        break;
    }
  }

  data(): FieldTallyData {
    const numbers = new Map<number, number>();
    for (const v of this.numbers) numbers.set(v, (numbers.get(v) ?? 0) + 1);
    return {
      key: this.field.key,
      answered: this.answered,
      counts: [...this.counts.entries()].map(([value, n]) => ({ value, n })),
      numbers: [...numbers.entries()].sort(([a], [b]) => a - b).map(([value, n]) => ({ value, n })),
      samples: [...this.samples],
    };
  }

  /** Adds a later chunk's tallies of this field (chunks are absorbed in position order). */
  absorb(data: FieldTallyData) {
    this.answered += data.answered;
    for (const { value, n } of data.counts) this.counts.set(value, (this.counts.get(value) ?? 0) + n);
    for (const { value, n } of data.numbers) for (let i = 0; i < n; i++) this.numbers.push(value);
    for (const sample of data.samples) if (this.samples.length < TEXT_SAMPLES) this.samples.push(sample);
  }

  report(): FieldReport {
    const display = resolvedDisplay(this.field);
    const base = { key: this.field.key, label: this.field.label, type: this.field.type, display, answered: this.answered };
    if (display === 'hidden') return { ...base, summary: null };
    const mean = this.numbers.length ? round(this.numbers.reduce((a, b) => a + b, 0) / this.numbers.length) : null;
    switch (this.field.type) {
      case 'text':
        return { ...base, summary: { kind: 'samples', samples: this.samples } };
      case 'number':
        return { ...base, summary: distribution(this.numbers, mean) };
      case 'date': {
        const sorted = [...this.counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
        return { ...base, summary: { kind: 'counts', counts: Object.fromEntries(sorted) } };
      }
      case 'rating':
        return { ...base, summary: { kind: 'counts', counts: Object.fromEntries(this.counts), mean } };
      default:
        return { ...base, summary: { kind: 'counts', counts: Object.fromEntries(this.counts) } };
    }
  }
}

function distribution(values: number[], mean: number | null): FieldSummary {
  if (values.length === 0) return { kind: 'distribution', count: 0, min: null, max: null, mean: null, median: null, buckets: [] };
  const sorted = [...values].sort((a, b) => a - b);
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : round((sorted[mid - 1]! + sorted[mid]!) / 2);
  const width = max === min ? 1 : (max - min) / NUMBER_BUCKETS;
  const n = max === min ? 1 : NUMBER_BUCKETS;
  const buckets = Array.from({ length: n }, (_, i) => ({ from: round(min + i * width), to: round(i === n - 1 ? max : min + (i + 1) * width), count: 0 }));
  for (const v of sorted) buckets[Math.min(n - 1, Math.floor((v - min) / width))]!.count += 1;
  return { kind: 'distribution', count: values.length, min, max, mean, median, buckets };
}

export class OutcomeReportBuilder {
  private readonly totals = { recipients: 0, finished: 0, outstanding: 0, failed: 0, skipped: 0, calls: 0, call_backs: 0, answered: 0, completed: 0, success: 0 };
  private readonly funnel = { staged: 0, dialled: 0, answered: 0, conversation: 0, completed: 0 };
  private readonly dispositions = Object.fromEntries(DISPOSITIONS.map((d) => [d, 0])) as Record<Disposition, number>;
  private readonly tallies: FieldTally[];
  private readonly hours = new Map<string, Hour>();

  constructor(capture: Capture | null) {
    this.tallies = (capture?.fields ?? []).map((f) => new FieldTally(f));
  }

  /** People counted so far. */
  get recipients(): number {
    return this.totals.recipients;
  }

  add(doc: OutcomeRow): void {
    const t = this.totals;
    t.recipients += 1;
    if (doc.state === 'called') t.finished += 1;
    else if (doc.state === 'failed') t.failed += 1;
    else if (doc.state === 'skipped') t.skipped += 1;
    else t.outstanding += 1;
    const progress = callProgressOf(doc);
    const calls = doc.calls ?? [];
    t.calls += calls.length;
    t.call_backs += progress.call_backs;
    t.answered += progress.answered;
    t.completed += progress.completed;
    this.funnel.staged += 1;
    this.funnel.dialled += progress.dialled;
    this.funnel.answered += progress.answered;
    this.funnel.conversation += progress.conversation;
    this.funnel.completed += progress.completed;
    const outcome = doc.outcome;
    if (outcome?.success === true) t.success += 1;
    if (outcome?.disposition) this.dispositions[outcome.disposition] += 1;
    for (const tally of this.tallies) {
      const value = outcome?.fields[tally.field.key];
      if (value !== undefined) tally.add(doc.position, value);
    }
    for (const call of calls) {
      const hour = `${new Date(call.placed_at).toISOString().slice(0, 13)}:00:00Z`;
      const slot = this.hours.get(hour) ?? { calls: 0, answered: 0, completed: 0 };
      slot.calls += 1;
      if (call.answered) slot.answered += 1;
      if (call.disposition === 'completed') slot.completed += 1;
      this.hours.set(hour, slot);
    }
  }

  /**
   * People never touched by the run (queued, no call): they are staged and outstanding. The
   * report counts them so without reading them (chunks.ts).
   */
  addUntouched(count: number): void {
    if (count <= 0) return;
    this.totals.recipients += count;
    this.totals.outstanding += count;
    this.funnel.staged += count;
  }

  /** The tallies as plain data, to store. */
  tally(): OutcomeTally {
    return {
      totals: { ...this.totals },
      funnel: { ...this.funnel },
      dispositions: { ...this.dispositions },
      fields: this.tallies.map((t) => t.data()),
      hours: [...this.hours.entries()].map(([hour, slot]) => ({ hour, ...slot })),
    };
  }

  /**
   * Adds a stored tally, as if its people had been added one by one: tallies must be absorbed
   * in position order (a text field keeps the first samples). A field the tally does not know
   * adds nothing.
   */
  absorb(tally: OutcomeTally): void {
    for (const name of Object.keys(this.totals) as (keyof Totals)[]) this.totals[name] += tally.totals[name] ?? 0;
    for (const stage of FUNNEL_STAGES) this.funnel[stage] += tally.funnel[stage] ?? 0;
    for (const d of DISPOSITIONS) this.dispositions[d] += tally.dispositions[d] ?? 0;
    for (const field of this.tallies) {
      const data = tally.fields.find((f) => f.key === field.field.key);
      if (data) field.absorb(data);
    }
    for (const { hour, ...slot } of tally.hours) {
      const mine = this.hours.get(hour) ?? { calls: 0, answered: 0, completed: 0 };
      mine.calls += slot.calls;
      mine.answered += slot.answered;
      mine.completed += slot.completed;
      this.hours.set(hour, mine);
    }
  }

  build(campaign: { _id: string; status: string }, at: Date): OutcomeReport {
    const staged = this.funnel.staged;
    return {
      campaign_id: campaign._id,
      status: campaign.status,
      totals: { ...this.totals },
      funnel: (Object.keys(this.funnel) as (typeof FUNNEL_STAGES)[number][]).map((stage) => ({
        stage,
        count: this.funnel[stage],
        rate: staged === 0 ? 0 : round(this.funnel[stage] / staged),
      })),
      dispositions: { ...this.dispositions },
      fields: this.tallies.map((t) => t.report()),
      timeline: [...this.hours.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([hour, slot]) => ({ hour, ...slot })),
      // The REST timestamp form (api/format.ts).
      generated_at: `${at.toISOString().slice(0, 23)}000+00:00`,
    };
  }
}
