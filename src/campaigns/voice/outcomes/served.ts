import type { Db } from 'mongodb';
import { PassThrough, type Readable } from 'node:stream';
import type { CampaignDoc } from '../../campaign';
import { CAMPAIGN_COUNT_CHUNK } from '../../contracts';
import { OUTCOME_CHUNK, outcomeChunkId, outcomeCollections, outcomeRow, type OutcomeTalliesDoc } from './chunks';
import { OutcomeReportBuilder, type OutcomeRow } from './report';
import { csvHead, csvRowsText } from './csv';
import { progressCollection } from '../../progress';
import { readRecipientBatch } from '../../staging';

/**
 * A call campaign's outcome report and CSV (shared by the public routes and the console, whose
 * session callers hold no API key), read from the outcome chunks and their tallies
 * (chunks.ts): the report is two point reads, the CSV one per `OUTCOME_CHUNK` people
 * (their rows kept as CSV text).
 *
 * Campaigns that ran before those documents existed still answer, the slow way: their report
 * is built person by person from the recipient documents, and the CSV reads the recipient
 * document of every position no part holds.
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
    for (let from = 0; from < campaign.recipients; from += RECIPIENT_PAGE) {
      for (const row of await recipientRows(db, campaign._id, from, Math.min(campaign.recipients, from + RECIPIENT_PAGE))) report.add(row);
    }
  }
  return report.build(campaign, at);
}

/** Recipient documents of positions `[from, until)` as rows, a page of point reads at a time. */
async function recipientRows(db: Db, campaignId: string, from: number, until: number): Promise<OutcomeRow[]> {
  const rows: OutcomeRow[] = [];
  for (let start = from; start < until; start += RECIPIENT_PAGE) {
    const docs = await readRecipientBatch(db, campaignId, start, Math.min(RECIPIENT_PAGE, until - start));
    rows.push(...docs.map(outcomeRow));
  }
  return rows;
}

/**
 * One outcome chunk's CSV text: each count chunk's part as the run wrote it, and, for a part
 * not written (or not whole), its people rendered now from their recipient documents.
 */
async function chunkCsv(db: Db, campaign: CampaignDoc, k: number): Promise<string> {
  const from = k * OUTCOME_CHUNK;
  const until = Math.min(campaign.recipients, from + OUTCOME_CHUNK);
  const doc = await outcomeCollections(db).chunks.findOne({ _id: outcomeChunkId(campaign._id, k) });
  const parts = new Map((doc?.parts ?? []).map((p) => [p.part, p]));
  let text = '';
  for (let start = from; start < until; start += CAMPAIGN_COUNT_CHUNK) {
    const end = Math.min(until, start + CAMPAIGN_COUNT_CHUNK);
    const part = parts.get(start / CAMPAIGN_COUNT_CHUNK);
    text += part && part.rows === end - start ? part.text : csvRowsText(await recipientRows(db, campaign._id, start, end), campaign.capture);
  }
  return text;
}

/**
 * The CSV as a stream: the header, then each chunk's rows as they are read (up to
 * CSV_READ_AHEAD chunks read while this one is sent), waiting while the client is behind. Byte for byte what
 * csv-stringify's streaming writer gives (csv.ts). A read failure ends the stream
 * with that error.
 */
/**
 * Chunks (500 people, ≈ 125 KiB of text each) read ahead of the one being sent. One at a
 * time, FerretDB's decoding of each chunk ran alone on one core: 50,000 people took 2.1–2.5 s
 * on an idle machine; several in flight use both. Memory stays a few chunks.
 */
const CSV_READ_AHEAD = 4;

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
      const ahead: Promise<string>[] = [];
      let requested = 0;
      for (let k = 0; k < count; k++) {
        while (requested < count && ahead.length < CSV_READ_AHEAD) ahead.push(read(requested++));
        await send(await ahead.shift()!);
      }
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}
