import type { Db } from 'mongodb';
import { PassThrough, type Readable } from 'node:stream';
import type { CampaignDoc } from './campaign';
import { OUTCOME_CHUNK, outcomeChunkId, outcomeCollections, outcomeRow, type OutcomeTalliesDoc } from './outcomeChunks';
import { OutcomeReportBuilder, type OutcomeRow } from './outcomeReport';
import { csvHead, csvRowsText } from './outcomesCsv';
import { progressCollection } from './progress';
import { recipientId, stagingCollections } from './staging';

/**
 * A call campaign's outcome report and CSV (shared by the public routes and the console, whose
 * session callers hold no API key), read from the outcome chunks and their tallies
 * (outcomeChunks.ts): the report is two point reads, the CSV one per `OUTCOME_CHUNK` people
 * (the chunk's rows kept as CSV text).
 *
 * Campaigns that ran before those documents existed still answer, the slow way: their report
 * is built person by person from the recipient documents, and the CSV reads the recipient
 * document of every position no chunk holds.
 */

/** Recipient documents read at once where no chunk holds a person (point reads by `_id`). */
const RECIPIENT_PAGE = 200;

/**
 * The tallies to build the report from: the stored ones when complete; empty ones when the run
 * has counted nobody yet (no progress document: everyone is still queued); null when the
 * campaign was counted before tallies were kept, so only its recipients can tell.
 */
async function usableTallies(db: Db, campaignId: string): Promise<Pick<OutcomeTalliesDoc, 'chunks'> | null> {
  const tallies = await outcomeCollections(db).tallies.findOne({ _id: campaignId });
  if (tallies) return tallies.complete ? tallies : null;
  const counted = await progressCollection(db).findOne({ _id: campaignId }, { projection: { _id: 1 } });
  return counted ? null : { chunks: {} };
}

export async function buildOutcomeReport(db: Db, campaign: CampaignDoc, at: Date) {
  const report = new OutcomeReportBuilder(campaign.capture);
  const tallies = await usableTallies(db, campaign._id);
  if (tallies) {
    // Position order: a text field keeps its first samples.
    const order = Object.keys(tallies.chunks).map(Number).sort((a, b) => a - b);
    for (const k of order) report.absorb(tallies.chunks[String(k)]!);
    // Positions no chunk holds were never counted: still queued, never called.
    report.addUntouched(campaign.recipients - report.recipients);
  } else {
    for await (const row of outcomeRows(db, campaign)) report.add(row);
  }
  return report.build(campaign, at);
}

/** Recipient documents of the given positions, as rows, in the order given. */
async function recipientRows(db: Db, campaignId: string, positions: number[]): Promise<OutcomeRow[]> {
  const { recipients } = stagingCollections(db);
  const rows: OutcomeRow[] = [];
  for (let i = 0; i < positions.length; i += RECIPIENT_PAGE) {
    const docs = await Promise.all(positions.slice(i, i + RECIPIENT_PAGE).map((p) => recipients.findOne({ _id: recipientId(campaignId, p) })));
    for (const doc of docs) if (doc) rows.push(outcomeRow(doc));
  }
  return rows;
}

/** One chunk's people in position order: its stored rows, and the recipient documents of positions it lacks. */
async function chunkRows(db: Db, campaign: Pick<CampaignDoc, '_id' | 'recipients'>, k: number): Promise<OutcomeRow[]> {
  const from = k * OUTCOME_CHUNK;
  const until = Math.min(campaign.recipients, from + OUTCOME_CHUNK);
  const doc = await outcomeCollections(db).chunks.findOne({ _id: outcomeChunkId(campaign._id, k) });
  const stored = (doc?.rows ?? []).filter((row) => row.position >= from && row.position < until);
  if (stored.length === until - from) return stored;
  const held = new Set(stored.map((row) => row.position));
  const missing = Array.from({ length: until - from }, (_, i) => from + i).filter((p) => !held.has(p));
  const read = await recipientRows(db, campaign._id, missing);
  return [...stored, ...read].sort((a, b) => a.position - b.position);
}

/** Every staged person in position order, a chunk at a time, the next chunk read while this one is used. */
export async function* outcomeRows(db: Db, campaign: Pick<CampaignDoc, '_id' | 'recipients'>): AsyncGenerator<OutcomeRow> {
  const count = Math.ceil(campaign.recipients / OUTCOME_CHUNK);
  const read = (k: number) => {
    const rows = chunkRows(db, campaign, k);
    // Its failure is seen when it is awaited; until then it must not count as unhandled.
    void rows.catch(() => undefined);
    return rows;
  };
  let next = count > 0 ? read(0) : null;
  for (let k = 0; k < count; k++) {
    const rows = await next!;
    next = k + 1 < count ? read(k + 1) : null;
    yield* rows;
  }
}

/**
 * One chunk's CSV text: as the run wrote it when its rows hold every position of the chunk,
 * else rendered now from its rows and the recipient documents of the positions it lacks.
 */
async function chunkCsv(db: Db, campaign: CampaignDoc, k: number): Promise<string> {
  const from = k * OUTCOME_CHUNK;
  const until = Math.min(campaign.recipients, from + OUTCOME_CHUNK);
  const written = await outcomeCollections(db).csv.findOne({ _id: outcomeChunkId(campaign._id, k) });
  if (written && written.rows === until - from) return written.text;
  return csvRowsText(await chunkRows(db, campaign, k), campaign.capture);
}

/**
 * The CSV as a stream: the header, then each chunk's rows as they are read (the next chunk
 * read while this one is sent), waiting while the client is behind. Byte for byte what
 * csv-stringify's streaming writer gives (outcomesCsv.ts). A read failure ends the stream
 * with that error.
 */
export function streamOutcomesCsv(db: Db, campaign: CampaignDoc): Readable {
  const out = new PassThrough();
  const send = async (text: string) => {
    if (!out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
  };
  void (async () => {
    try {
      await send(csvHead(campaign.capture));
      const count = Math.ceil(campaign.recipients / OUTCOME_CHUNK);
      const read = (k: number) => {
        const text = chunkCsv(db, campaign, k);
        // Its failure is seen when it is awaited; until then it must not count as unhandled.
        void text.catch(() => undefined);
        return text;
      };
      let next = count > 0 ? read(0) : null;
      for (let k = 0; k < count; k++) {
        const text = await next!;
        next = k + 1 < count ? read(k + 1) : null;
        await send(text);
      }
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}
