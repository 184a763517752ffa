import type { Db } from 'mongodb';
import type { Stringifier } from 'csv-stringify';
import type { CampaignDoc } from './campaign';
import { OutcomeReportBuilder } from './outcomeReport';
import { csvRow, outcomesCsvWriter } from './outcomesCsv';
import { readRecipientBatch, type CampaignRecipientDoc } from './staging';

/**
 * A call campaign's outcome report and CSV, read recipient by recipient: shared by the public
 * routes and the console (whose session callers hold no API key).
 */

/** Recipients read at once (point reads by `_id`, in flight together). */
const OUTCOME_PAGE = 200;

/** Every staged recipient in position order, a page of point reads at a time. */
export async function* stagedRecipients(db: Db, campaign: Pick<CampaignDoc, '_id' | 'recipients'>): AsyncGenerator<CampaignRecipientDoc> {
  for (let from = 0; from < campaign.recipients; from += OUTCOME_PAGE) {
    yield* await readRecipientBatch(db, campaign._id, from, Math.min(OUTCOME_PAGE, campaign.recipients - from));
  }
}

export async function buildOutcomeReport(db: Db, campaign: CampaignDoc, at: Date) {
  const report = new OutcomeReportBuilder(campaign.capture);
  for await (const doc of stagedRecipients(db, campaign)) report.add(doc);
  return report.build(campaign, at);
}

/**
 * The CSV as a stream: rows are written as they are read, and the writer's buffer bounds what
 * waits for the client. A read failure ends the stream with that error.
 */
export function streamOutcomesCsv(db: Db, campaign: CampaignDoc): Stringifier {
  const writer = outcomesCsvWriter(campaign.capture);
  void (async () => {
    try {
      for await (const doc of stagedRecipients(db, campaign)) {
        if (!writer.write(csvRow(doc, campaign.capture))) await new Promise((resolve) => writer.once('drain', resolve));
      }
      writer.end();
    } catch (err) {
      writer.destroy(err as Error);
    }
  })();
  return writer;
}
