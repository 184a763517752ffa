import type { Collection, Db } from 'mongodb';
import type { Capture } from '../../../calls';
import { campaignCollections } from '../../campaign';
import { CAMPAIGN_COUNT_CHUNK } from '../../contracts';
import { OutcomeReportBuilder, type OutcomeRow, type OutcomeTally } from './report';
import { csvRowsText } from './csv';
import type { CampaignRecipientDoc } from '../../staging';
import { replaceUpserting } from '../../../db/upsert';

/**
 * A call campaign's outcomes kept for reading in bulk (issue 15: GET …/outcomes and the CSV
 * under 2 s for 50,000 people). FerretDB on SQLite answers a point read in about 1.7 ms of
 * CPU whatever its size, so reading every person's recipient document costs minutes; these
 * documents let the report read one document and the CSV one per `OUTCOME_CHUNK` people.
 *
 * - `campaign_outcome_chunks` `<campaign_id>:<k>`: positions `[k × OUTCOME_CHUNK,
 *   (k + 1) × OUTCOME_CHUNK)` in parts, one per count chunk (progress.ts, 100 people) the run
 *   has counted: the part's rows as CSV text (csv.ts `csvRowsText`, one string) and
 *   their report tally (report.ts `OutcomeTally`). Text, not structured rows: FerretDB
 *   decodes a document value by value (measured: 0.28 ms of CPU per person for structured
 *   rows of ≈ 40 values), and a string is one value.
 * - `campaign_outcome_tallies` `<campaign_id>`: each outcome chunk's tally, its parts' added up.
 *
 * Both are written by the recount (progress.ts) from the recipient documents of whole count
 * chunks it has just read, never incremented: a part is replaced whole and the chunk's tally
 * recomputed from its parts, so folding a person twice counts them once, and FerretDB's non-atomic `$inc` is never
 * relied on. The run's activities are its only writers while it runs (one at a time); a
 * console re-read refolds one person the same way (../rereadRefold.ts).
 *
 * A position no part holds yet was never counted, so it is still `queued` with no call: the
 * report counts it as staged and outstanding, and the CSV reads its recipient document.
 */

/** People per outcome chunk: whole count chunks (progress.ts), so a recount fills whole rows. */
export const OUTCOME_CHUNK = 5 * CAMPAIGN_COUNT_CHUNK;

/** One count chunk's people within an outcome chunk. */
export interface OutcomePart {
  /** The count chunk's index (progress.ts `chunkOf`). */
  part: number;
  /** How many people: the count chunk's staged positions. */
  rows: number;
  /** Their rows as the CSV writes them (csv.ts `csvRowsText`). */
  text: string;
  tally: OutcomeTally;
}

export interface OutcomeChunkDoc {
  /** `<campaign_id>:<k>`. */
  _id: string;
  tenant_id: string;
  campaign_id: string;
  chunk: number;
  /** By `part`, only those counted so far. */
  parts: OutcomePart[];
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
   * before these documents existed: its report reads every person (served.ts).
   */
  complete: boolean;
  updated_at: Date;
}

export const outcomeChunkOf = (position: number): number => Math.floor(position / OUTCOME_CHUNK);
export const outcomeChunkId = (campaignId: string, chunk: number): string => `${campaignId}:${chunk}`;

export function outcomeCollections(db: Db): { chunks: Collection<OutcomeChunkDoc>; tallies: Collection<OutcomeTalliesDoc> } {
  return {
    chunks: db.collection<OutcomeChunkDoc>('campaign_outcome_chunks'),
    tallies: db.collection<OutcomeTalliesDoc>('campaign_outcome_tallies'),
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

/** A count chunk's people as a part: their CSV text and tally. */
export function partOf(part: number, rows: readonly OutcomeRow[], capture: Capture | null): OutcomePart {
  return { part, rows: rows.length, text: csvRowsText(rows, capture), tally: tallyRows(rows, capture) };
}

/** Replaces the parts counted again, keeping the others; by part. */
export function mergeParts(stored: readonly OutcomePart[], fresh: readonly OutcomePart[]): OutcomePart[] {
  const byPart = new Map(stored.map((p) => [p.part, p]));
  for (const p of fresh) byPart.set(p.part, p);
  return [...byPart.values()].sort((a, b) => a.part - b.part);
}

/** An outcome chunk's tally: its parts' tallies added up in position order. */
export function chunkTally(parts: readonly OutcomePart[], capture: Capture | null): OutcomeTally {
  const builder = new OutcomeReportBuilder(capture);
  for (const p of parts) builder.absorb(p.tally);
  return builder.tally();
}

/**
 * Folds freshly read rows into their chunks' parts, and the chunks' tallies into the
 * campaign's tallies: `chunk` per outcome chunk (in any order), then `close`. Safe to repeat:
 * a part is replaced whole, a chunk's tally recomputed from its parts.
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

  /**
   * The rows of chunk `k` just read, whole count chunks (a part each); `whole` when they are
   * every staged position of the chunk (the stored parts are not read).
   */
  async chunk(k: number, fresh: readonly OutcomeRow[], whole: boolean): Promise<void> {
    const { chunks } = outcomeCollections(this.db);
    const _id = outcomeChunkId(this.ids.campaignId, k);
    const byPart = new Map<number, OutcomeRow[]>();
    for (const row of fresh) {
      const p = Math.floor(row.position / CAMPAIGN_COUNT_CHUNK);
      byPart.set(p, [...(byPart.get(p) ?? []), row]);
    }
    const counted = [...byPart.entries()].map(([p, rows]) => partOf(p, [...rows].sort((a, b) => a.position - b.position), this.capture));
    const before = whole ? null : await chunks.findOne({ _id });
    const parts = mergeParts(before?.parts ?? [], counted);
    await replaceUpserting(chunks, { _id }, { tenant_id: this.ids.tenantId, campaign_id: this.ids.campaignId, chunk: k, parts, updated_at: this.at });
    this.tallied[String(k)] = chunkTally(parts, this.capture);
  }

  /**
   * Writes the tallies. `everyChunk`: every staged position was just counted; `firstCount`:
   * nothing was counted before (no progress document). Either leaves nothing counted outside
   * the chunks, so the tallies are complete; otherwise they stay as they were.
   */
  async close(input: { everyChunk: boolean; firstCount: boolean }): Promise<void> {
    const complete = input.everyChunk || (this.stored ? this.stored.complete : input.firstCount);
    await replaceUpserting(outcomeCollections(this.db).tallies, { _id: this.ids.campaignId }, { tenant_id: this.ids.tenantId, chunks: this.tallied, complete, updated_at: this.at });
  }
}
