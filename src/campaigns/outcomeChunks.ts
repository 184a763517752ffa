import type { Collection, Db } from 'mongodb';
import type { Capture } from '../calls/types';
import { campaignCollections } from './campaign';
import { CAMPAIGN_COUNT_CHUNK } from './contracts';
import { OutcomeReportBuilder, type OutcomeRow, type OutcomeTally } from './outcomeReport';
import { csvRowsText } from './outcomesCsv';
import type { CampaignRecipientDoc } from './staging';

/**
 * A call campaign's outcomes kept for reading in bulk (issue 15: GET …/outcomes and the CSV
 * under 2 s for 50,000 people). FerretDB on SQLite answers a point read in about 1.7 ms of
 * CPU whatever its size, so reading every person's recipient document costs minutes; these
 * documents let the report read one document and the CSV one per `OUTCOME_CHUNK` people.
 *
 * - `campaign_outcome_chunks` `<campaign_id>:<k>`: the rows (a person's position, contact,
 *   state, calls and merged outcome) of positions `[k × OUTCOME_CHUNK, (k + 1) × OUTCOME_CHUNK)`
 *   that the run has counted, in position order.
 * - `campaign_outcome_tallies` `<campaign_id>`: each chunk's report tallies
 *   (outcomeReport.ts `OutcomeTally`), recomputed whole from the chunk's rows.
 * - `campaign_outcome_csv` `<campaign_id>:<k>`: the chunk's rows as CSV text (outcomesCsv.ts
 *   `csvRowsText`), one string: FerretDB decodes a document value by value (≈ 0.28 ms of CPU
 *   per person for the structured rows, measured), and one string is one value.
 *
 * Both are written by the recount (progress.ts) from the recipient documents it has just read,
 * never incremented: a chunk's rows are replaced by position and its tally recomputed from
 * them, so folding a person twice counts them once, and FerretDB's non-atomic `$inc` is never
 * relied on. The run's activities are its only writers while it runs (one at a time); a
 * console re-read refolds one person the same way (refoldCall.ts).
 *
 * A position no chunk holds yet was never counted, so it is still `queued` with no call: the
 * report counts it as staged and outstanding, and the CSV reads its recipient document.
 */

/** People per outcome chunk: whole count chunks (progress.ts), so a recount fills whole rows. */
export const OUTCOME_CHUNK = 5 * CAMPAIGN_COUNT_CHUNK;

export interface OutcomeChunkDoc {
  /** `<campaign_id>:<k>`. */
  _id: string;
  tenant_id: string;
  campaign_id: string;
  chunk: number;
  /** In position order; only positions counted so far. */
  rows: OutcomeRow[];
  updated_at: Date;
}

export interface OutcomeTalliesDoc {
  /** The campaign id. */
  _id: string;
  tenant_id: string;
  /** Chunk index → its tally. */
  chunks: Record<string, OutcomeTally>;
  /**
   * True when every position counted since staging is in the chunks (the tallies began with the
   * run's first count, or a count of every chunk rebuilt them). False for a campaign that ran
   * before these documents existed: its report reads every person (outcomeReading.ts).
   */
  complete: boolean;
  updated_at: Date;
}

export interface OutcomeCsvDoc {
  /** `<campaign_id>:<k>`, as the chunk's. */
  _id: string;
  tenant_id: string;
  campaign_id: string;
  chunk: number;
  /** How many rows the text holds (the chunk's rows, in position order). */
  rows: number;
  text: string;
  updated_at: Date;
}

export const outcomeChunkOf = (position: number): number => Math.floor(position / OUTCOME_CHUNK);
export const outcomeChunkId = (campaignId: string, chunk: number): string => `${campaignId}:${chunk}`;

export function outcomeCollections(db: Db): { chunks: Collection<OutcomeChunkDoc>; tallies: Collection<OutcomeTalliesDoc>; csv: Collection<OutcomeCsvDoc> } {
  return {
    chunks: db.collection<OutcomeChunkDoc>('campaign_outcome_chunks'),
    tallies: db.collection<OutcomeTalliesDoc>('campaign_outcome_tallies'),
    csv: db.collection<OutcomeCsvDoc>('campaign_outcome_csv'),
  };
}

/** The part of a recipient the report and the CSV read. */
export function outcomeRow(doc: CampaignRecipientDoc): OutcomeRow {
  return {
    position: doc.position,
    contact_id: doc.contact_id,
    name: doc.name,
    to: doc.to,
    state: doc.state,
    calls: doc.calls ?? [],
    outcome: doc.outcome ?? null,
  };
}

/** A chunk's tally, from its rows in position order. */
export function tallyRows(rows: readonly OutcomeRow[], capture: Capture | null): OutcomeTally {
  const builder = new OutcomeReportBuilder(capture);
  for (const row of rows) builder.add(row);
  return builder.tally();
}

/** Replaces the rows of the same positions, keeping the others; position order. */
export function mergeRows(stored: readonly OutcomeRow[], fresh: readonly OutcomeRow[]): OutcomeRow[] {
  const byPosition = new Map(stored.map((row) => [row.position, row]));
  for (const row of fresh) byPosition.set(row.position, row);
  return [...byPosition.values()].sort((a, b) => a.position - b.position);
}

/**
 * Folds freshly read rows into their chunks, and the chunks' tallies into the campaign's
 * tallies: `chunk` per outcome chunk (in any order), then `close`. Safe to repeat: rows replace
 * rows, a chunk's tally is recomputed whole from its rows.
 */
export class OutcomeFold {
  private readonly tallied: Record<string, OutcomeTally>;

  private constructor(
    private readonly db: Db,
    private readonly ids: { campaignId: string; tenantId: string },
    private readonly capture: Capture | null,
    private readonly stored: OutcomeTalliesDoc | null,
    private readonly at: Date,
  ) {
    this.tallied = { ...(stored?.chunks ?? {}) };
  }

  static async open(db: Db, input: { campaignId: string; tenantId: string; at: Date }): Promise<OutcomeFold> {
    const campaign = await campaignCollections(db).campaigns.findOne({ _id: input.campaignId }, { projection: { capture: 1 } });
    const stored = await outcomeCollections(db).tallies.findOne({ _id: input.campaignId });
    return new OutcomeFold(db, input, campaign?.capture ?? null, stored, input.at);
  }

  /** The rows of chunk `k` just read; `whole` when they are every staged position of the chunk. */
  async chunk(k: number, fresh: readonly OutcomeRow[], whole: boolean): Promise<void> {
    const { chunks, csv } = outcomeCollections(this.db);
    const _id = outcomeChunkId(this.ids.campaignId, k);
    const before = whole ? null : await chunks.findOne({ _id });
    const rows = mergeRows(before?.rows ?? [], fresh);
    const base = { tenant_id: this.ids.tenantId, campaign_id: this.ids.campaignId, chunk: k, updated_at: this.at };
    await chunks.replaceOne({ _id }, { ...base, rows }, { upsert: true });
    await csv.replaceOne({ _id }, { ...base, rows: rows.length, text: csvRowsText(rows, this.capture) }, { upsert: true });
    this.tallied[String(k)] = tallyRows(rows, this.capture);
  }

  /**
   * Writes the tallies. `everyChunk`: every staged position was just counted; `firstCount`:
   * nothing was counted before (no progress document). Either leaves nothing counted outside
   * the chunks, so the tallies are complete; otherwise they stay as they were.
   */
  async close(input: { everyChunk: boolean; firstCount: boolean }): Promise<void> {
    const complete = input.everyChunk || (this.stored ? this.stored.complete : input.firstCount);
    await outcomeCollections(this.db).tallies.replaceOne(
      { _id: this.ids.campaignId },
      { tenant_id: this.ids.tenantId, chunks: this.tallied, complete, updated_at: this.at },
      { upsert: true },
    );
  }
}
