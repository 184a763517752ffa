import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import { conversationIdFor, conversationsCollection, phoneDigits } from '../conversations';
import type { CampaignDoc } from './campaign';
import { RECIPIENT_STATES, readRecipientBatch, type CampaignRecipientDoc, type RecipientState } from './staging';
import { guardCell } from './voice/outcomes/csv';
import { formatZonedStamp } from './zonedText';

/**
 * The campaign page's per-person report: each staged person with their state, the reason in
 * words, and when, optionally only one state; and the same rows as CSV. Staged people are
 * keyed by position (`<campaign_id>:<position>`), so every read here is a batch of `_id`s
 * (the one filter FerretDB answers from an index): a page never rescans what came before it,
 * and a filter reads forward from the cursor's position until the page is full or
 * `REPORT_SCAN_MAX` positions were read (the next page continues from there).
 */

/** Positions one filtered page reads at most: a rare state in a big campaign answers a short (or empty) page with a cursor, not a scan of 50,000. */
export const REPORT_SCAN_MAX = 1_000;
/** Positions read per batch (by `_id`) for a filtered page and for the CSV. */
export const REPORT_BATCH = 200;

/** A skip's or failure's reason as an operator reads it; the code stays in the record. */
const REASON_WORDS: Record<string, string> = {
  suppressed: 'Not sent: they opted out of messages from this business.',
  cancelled: 'Not sent: the campaign was cancelled before reaching them.',
  provider_error: 'Refused by WhatsApp when sending.',
  outcome_unknown: 'Not known whether it was sent: the provider did not answer; it was not sent again.',
  destination_too_short: 'Not called: the number is too short to dial.',
  destination_unusable: 'Not called: the number cannot be dialled.',
  self_dial: 'Not called: the number is one of our own.',
  destination_blocked: 'Not called: the number is blocked.',
  country_not_allowed: "Not called: the number's country is not allowed for this workspace.",
  originate_error: 'Not called: the telephone network refused the call.',
};

const STATE_WORDS: Record<RecipientState, string> = {
  queued: 'Waiting to be sent.',
  sent: 'Sent; not yet delivered.',
  delivered: 'Delivered to their phone.',
  read: 'Read.',
  failed: 'Failed.',
  skipped: 'Skipped.',
  calling: 'Being called (or a call-back is owed).',
  called: 'Called.',
};

/** The state and its reason in words: `Skipped. Not sent: they opted out…`. */
export function recipientStatusWords(r: Pick<CampaignRecipientDoc, 'state' | 'skip_reason'>): string {
  const state = STATE_WORDS[r.state];
  if (!r.skip_reason) return state;
  return `${state} ${REASON_WORDS[r.skip_reason] ?? `Reason: ${r.skip_reason}.`}`;
}

export interface ReportPage {
  docs: CampaignRecipientDoc[];
  /** The position the next page reads from; null at the end. */
  next: number | null;
}

/** A page of the report from position `from`: `limit` people, only those in `state` when given. */
export async function recipientReportPage(db: Db, campaign: Pick<CampaignDoc, '_id' | 'recipients'>, from: number, limit: number, state?: RecipientState): Promise<ReportPage> {
  const docs: CampaignRecipientDoc[] = [];
  let at = from;
  const stop = state ? Math.min(campaign.recipients, from + REPORT_SCAN_MAX) : campaign.recipients;
  while (at < stop && docs.length < limit) {
    const start = at;
    const count = Math.min(state ? REPORT_BATCH : limit - docs.length, stop - start);
    const batch = await readRecipientBatch(db, campaign._id, start, count);
    // Every position of the batch was read (one with no record too), unless the page fills within it.
    at = start + count;
    for (const doc of batch) {
      if (state && doc.state !== state) continue;
      docs.push(doc);
      if (docs.length === limit) {
        at = doc.position + 1;
        break;
      }
    }
  }
  return { docs, next: at < campaign.recipients ? at : null };
}

/** A person's reply: their latest WhatsApp turn since the campaign launched (its first 140 characters). */
export interface RecipientReply {
  text: string;
  at: Date;
}

/**
 * The replies of a page's people, by position: their WhatsApp conversation (its id derives
 * from the workspace and the phone) read in one `_id` `$in`, its customer's latest turn kept
 * when it came after the launch. A call campaign's people answer on the call (its outcome).
 */
export async function repliesOf(db: Db, campaign: Pick<CampaignDoc, 'tenant_id' | 'channel' | 'launched_at'>, docs: readonly CampaignRecipientDoc[]): Promise<Map<number, RecipientReply>> {
  const replies = new Map<number, RecipientReply>();
  if (campaign.channel !== 'whatsapp' || !campaign.launched_at || docs.length === 0) return replies;
  const idOf = (r: CampaignRecipientDoc) => conversationIdFor(campaign.tenant_id, 'whatsapp', phoneDigits(r.to));
  const found = new Map((await findByIds(conversationsCollection(db), docs.map(idOf), { projection: { last_customer_turn: 1, tenant_id: 1 } })).map((c) => [c._id, c]));
  for (const r of docs) {
    const turn = found.get(idOf(r))?.last_customer_turn;
    if (turn && turn.at >= campaign.launched_at) replies.set(r.position, turn);
  }
  return replies;
}

export const REPORT_CSV_COLUMNS = [
  'position',
  'name',
  'phone',
  'contact_id',
  'row',
  'status',
  'reason',
  'reason_words',
  'status_at_utc',
  'status_at_local',
  'reply',
  'reply_at_local',
  'time_zone',
] as const;

/**
 * Every staged person (or those in `state`) as CSV, streamed in `_id` batches by position:
 * csv-stringify quotes, cells a spreadsheet would run as formulas are guarded, UTF-8 with a
 * BOM. The time is given in UTC and in the workspace's zone (named in its own column).
 */
export function streamRecipientReportCsv(
  db: Db,
  campaign: Pick<CampaignDoc, '_id' | 'recipients' | 'tenant_id' | 'channel' | 'launched_at'>,
  timeZone: string,
  state?: RecipientState,
): Readable {
  async function* rows() {
    for (let at = 0; at < campaign.recipients; at += REPORT_BATCH) {
      const batch = (await readRecipientBatch(db, campaign._id, at, Math.min(REPORT_BATCH, campaign.recipients - at))).filter((r) => !state || r.state === state);
      const replies = await repliesOf(db, campaign, batch);
      for (const r of batch) {
        const reply = replies.get(r.position);
        yield [
          String(r.position),
          guardCell(r.name ?? ''),
          r.to,
          r.contact_id ?? '',
          r.row === undefined ? '' : String(r.row),
          r.state,
          r.skip_reason ?? '',
          recipientStatusWords(r),
          r.state_at.toISOString(),
          formatZonedStamp(r.state_at, timeZone),
          reply ? guardCell(reply.text) : '',
          reply ? formatZonedStamp(reply.at, timeZone) : '',
          timeZone,
        ];
      }
    }
  }
  const out = stringify({ header: true, columns: [...REPORT_CSV_COLUMNS], bom: true });
  // pipeline, not pipe: a read failing midway destroys `out` with its error, which ends the response instead of leaving it open.
  pipeline(Readable.from(rows()), out, () => undefined);
  return out;
}

export { RECIPIENT_STATES };
