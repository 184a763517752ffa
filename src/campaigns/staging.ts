import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import type { WorkspaceDoc } from '../db/collections';
import { findByIds } from '../db/findByIds';
import { insertIfAbsent } from '../db/insertIfAbsent';
import type { Recipient } from './audience';
import type { MergedOutcome, RecipientCall } from './voice/mergedOutcome';
import type { CampaignDoc, ConsentPin, ExclusionReason } from './campaign';
import { evaluateCampaign, type Evaluation } from './evaluate';
import { onlyDuplicateKeys } from '../db/duplicateKey';

/**
 * Staging a launch's audience (campaigns-tickets-dues §2 `recipients`, §4 consent pin): the
 * audience is resolved once and each person written as a recipient document keyed by
 * position, `<campaign_id>:<n>` from 0, so the run reads its batches by known `_id` keys and
 * never scans (FerretDB on SQLite answers only `_id` equality and `_id: {$in}` from an
 * index). A staging document written last, keyed by the campaign id, pins the consent: the
 * time, the count and the checksum of the exact list. Once it exists the audience never
 * changes: a retried or repeated staging returns it and rebuilds nothing (resume and a
 * relaunch of a paused campaign rely on that).
 */

/**
 * WhatsApp: `queued`, `sent`, `delivered`, `read`, `failed`, `skipped`. Call campaigns:
 * `queued`, `calling` (a call placed, live or awaiting its reading, or a call-back due),
 * `called` (final: the merged outcome is known), `failed`, `skipped`.
 */
export const RECIPIENT_STATES = ['queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'calling', 'called'] as const;
export type RecipientState = (typeof RECIPIENT_STATES)[number];

export interface CampaignRecipientDoc {
  /** `<campaign_id>:<position>`. */
  _id: string;
  tenant_id: string;
  campaign_id: string;
  position: number;
  /** Null for a person of an uploaded list, who has `row` (the file's line) instead. */
  contact_id: string | null;
  row?: number;
  /** E.164. */
  to: string;
  name: string | null;
  /** The template's values in placeholder order, rendered at staging. */
  variables: string[];
  state: RecipientState;
  /** Why a `skipped` recipient was skipped. */
  skip_reason: string | null;
  message_id: string | null;
  state_at: Date;
  created_at: Date;
  /** Call campaigns: the purpose and script with this person's details filled in at staging. */
  purpose?: string | null;
  script?: string | null;
  /** Call campaigns: the call being placed or awaited; recorded before it is placed (voice/mergedOutcome.ts). */
  call_pending?: { call_id: string; kind: 'first' | 'call_back' } | null;
  /** Call campaigns: every call placed to this person, in order (at most a first call and one call-back). */
  calls?: RecipientCall[];
  /** Call campaigns: the person's outcome merged across their calls. */
  outcome?: MergedOutcome | null;
  /** Call campaigns: when the one call-back is due (epoch ms); null once placed or when none is owed. */
  call_back_due_at?: Date | null;
}

export interface CampaignStagingDoc extends ConsentPin {
  /** The campaign id. */
  _id: string;
  tenant_id: string;
  excluded: Partial<Record<ExclusionReason, number>>;
}

export const recipientId = (campaignId: string, position: number): string => `${campaignId}:${position}`;

export function stagingCollections(db: Db): { recipients: Collection<CampaignRecipientDoc>; stagings: Collection<CampaignStagingDoc> } {
  return {
    recipients: db.collection<CampaignRecipientDoc>('campaign_recipients'),
    stagings: db.collection<CampaignStagingDoc>('campaign_stagings'),
  };
}

/**
 * Documents per `insertMany`, one at a time (measured on FerretDB, docs/decisions/README.md
 * "Campaigns"): FerretDB's cost is mostly per write, so 5,000 at once took 50,000 in 6.3 s
 * (slowest write 0.8 s, under the API's 2 s database budget) where 1,000 at once took 10.7 s;
 * several in flight were no faster and queued behind SQLite's one writer past the budget.
 */
export const STAGING_CHUNK = 5_000;

/**
 * A write also stops at about this many bytes of recipients: a call campaign's people carry
 * their rendered purpose and script (up to 3,500 characters), and 5,000 of those in one write
 * would be 17 MB, far past what the measured writes of 5,000 WhatsApp recipients held (about
 * 1.5 MB).
 */
export const STAGING_CHUNK_BYTES = 2_000_000;

/** A recipient document's rough size: its fixed fields and what was rendered for this person. */
function approximateBytes(recipient: Recipient): number {
  let bytes = 250 + (recipient.name?.length ?? 0);
  for (const value of recipient.variables) bytes += value.length + 8;
  if (recipient.call) bytes += (recipient.call.purpose?.length ?? 0) + (recipient.call.script?.length ?? 0);
  return bytes;
}

/** Where each staging write starts and ends: `STAGING_CHUNK` recipients, or fewer to stay near `STAGING_CHUNK_BYTES`. */
export function stagingChunks(list: readonly Recipient[]): { start: number; end: number }[] {
  const chunks: { start: number; end: number }[] = [];
  let start = 0;
  let bytes = 0;
  for (let n = 0; n < list.length; n++) {
    const size = approximateBytes(list[n]!);
    if (n > start && (n - start >= STAGING_CHUNK || bytes + size > STAGING_CHUNK_BYTES)) {
      chunks.push({ start, end: n });
      start = n;
      bytes = 0;
    }
    bytes += size;
  }
  if (start < list.length) chunks.push({ start, end: list.length });
  return chunks;
}

function recipientDoc(campaign: CampaignDoc, recipient: Recipient, position: number, at: Date): CampaignRecipientDoc {
  return {
    _id: recipientId(campaign._id, position),
    tenant_id: campaign.tenant_id,
    campaign_id: campaign._id,
    position,
    contact_id: recipient.contact_id,
    ...(recipient.row !== undefined ? { row: recipient.row } : {}),
    to: recipient.to,
    name: recipient.name,
    variables: recipient.variables,
    state: 'queued',
    skip_reason: null,
    message_id: null,
    state_at: at,
    created_at: at,
    ...(recipient.call ? { purpose: recipient.call.purpose, script: recipient.call.script, call_pending: null, calls: [], outcome: null, call_back_due_at: null } : {}),
  };
}

/** Inserts a chunk; positions an earlier, unfinished attempt wrote are overwritten with this list's. */
async function writeChunk(recipients: Collection<CampaignRecipientDoc>, docs: CampaignRecipientDoc[]): Promise<void> {
  try {
    await recipients.insertMany(docs, { ordered: false });
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const writeErrors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    if (!onlyDuplicateKeys(writeErrors.map((e) => e.code))) throw err;
    for (const e of writeErrors) {
      const doc = docs[e.index]!;
      await recipients.replaceOne({ _id: doc._id }, doc);
    }
  }
}

export interface StagedAudience extends ConsentPin {
  /** False when an earlier staging had already pinned the audience. */
  staged: boolean;
  excluded: Partial<Record<ExclusionReason, number>>;
}

/**
 * Stages the campaign's audience once. `evaluation` is the launch checks' own, so the list
 * launch confirmed is the list written; without it the audience is evaluated here. `at` is
 * the launch time, passed in so a retry pins the same instant. Safe to retry: an attempt
 * that died midway is redone over the same keys, and positions past the new count are
 * removed before the pin is written.
 */
export async function stageRecipients(
  db: Db,
  input: { campaign: CampaignDoc; workspace: WorkspaceDoc; at: Date; evaluation?: Evaluation },
): Promise<StagedAudience> {
  const { recipients, stagings } = stagingCollections(db);
  const { campaign, at } = input;
  const pinned = await stagings.findOne({ _id: campaign._id });
  if (pinned) return { staged: false, pinned_at: pinned.pinned_at, recipients: pinned.recipients, checksum: pinned.checksum, excluded: pinned.excluded };

  const evaluation = input.evaluation ?? (await evaluateCampaign(db, campaign, input.workspace));
  const list = evaluation.recipients;
  for (const { start, end } of stagingChunks(list)) {
    const docs = list.slice(start, end).map((r, i) => recipientDoc(campaign, r, start + i, at));
    await writeChunk(recipients, docs);
  }
  // An earlier attempt with a longer list left positions past this one's end: remove them.
  for (let n = list.length; ; n++) {
    const { deletedCount } = await recipients.deleteOne({ _id: recipientId(campaign._id, n) });
    if (deletedCount === 0) break;
  }
  const pin: CampaignStagingDoc = {
    _id: campaign._id,
    tenant_id: campaign.tenant_id,
    pinned_at: at,
    recipients: list.length,
    checksum: evaluation.result.checksum,
    excluded: evaluation.result.excluded,
  };
  if (await insertIfAbsent(stagings, pin)) return { staged: true, ...pinOf(pin) };
  // Another staging of the same campaign finished first; its pin stands.
  const winner = (await stagings.findOne({ _id: campaign._id }))!;
  return { staged: false, ...pinOf(winner) };
}

const pinOf = (doc: CampaignStagingDoc) => ({ pinned_at: doc.pinned_at, recipients: doc.recipients, checksum: doc.checksum, excluded: doc.excluded });

/**
 * One batch of the run: positions `[from, from + count)`, in position order, read by their
 * `_id`s in one `$in` (per `ID_IN_MAX`), which the pinned FerretDB answers from its `_id_`
 * index; positions not staged are absent.
 */
export async function readRecipientBatch(db: Db, campaignId: string, from: number, count: number): Promise<CampaignRecipientDoc[]> {
  const { recipients } = stagingCollections(db);
  const ids = Array.from({ length: Math.max(0, count) }, (_, i) => recipientId(campaignId, from + i));
  const docs = await findByIds(recipients, ids);
  return docs.sort((a, b) => a.position - b.position);
}
