import type { Collection, Db } from 'mongodb';
import { callCollections, type CallDoc, fieldEvidence } from '../../calls';
import { mergeCalls, type FinishedCall, type RecipientCall } from './mergedOutcome';
import { campaignCollections } from '../campaign';
import { chunkOf, recount } from '../progress';
import { upsertOne } from '../../db/upsert';
import { recipientId, stagingCollections } from '../staging';

/**
 * A campaign call's way back to its person, and the refold a console re-read asks for (issue
 * 15): when a re-read changes a campaign call's result, the person's merged outcome is
 * recomputed from all their calls as they now read, then their count chunk and outcome chunk
 * are counted again (../progress.ts, outcomes/chunks.ts), so the counters, GET …/outcomes and the
 * CSV follow. The merge rules hold across the calls (mergedOutcome.ts `mergeCalls`): a call-back
 * that completed keeps the record completed whatever a re-read of the first call says, and an
 * unanswered call never replaces what another call taught.
 */

/** `campaign_call_links` `<call_id>`: which campaign person a call was placed to. */
export interface CampaignCallLinkDoc {
  _id: string;
  tenant_id: string;
  campaign_id: string;
  position: number;
}

export function callLinks(db: Db): Collection<CampaignCallLinkDoc> {
  return db.collection<CampaignCallLinkDoc>('campaign_call_links');
}

/**
 * Notes the call's person before it is placed; safe to repeat (same key, same values), also by
 * a step attempt that overlaps one Temporal has given up on.
 */
export async function linkCall(db: Db, link: CampaignCallLinkDoc): Promise<void> {
  const { _id, ...rest } = link;
  await upsertOne(callLinks(db), { _id }, { $set: rest });
}

/** A finished call as the merge reads it: its result and each answer's evidence. */
export function finishedCall(call: CallDoc): FinishedCall {
  const result = { ...call.result, read_at: call.result.read_at?.toISOString() ?? null };
  return { call_id: call._id, result, evidence: fieldEvidence(call.capture, call.transcript ?? [], result.fields) };
}

/** The call's record on the recipient, from its read model. */
export function callEntry(call: CallDoc, kind: RecipientCall['kind']): RecipientCall {
  return {
    call_id: call._id,
    kind,
    placed_at: call.created_at,
    answered: call.result.state === 'pending' ? null : call.started_at !== null,
    ended_at: call.ended_at,
    disposition: call.result.disposition,
    result_state: call.result.state,
  };
}

export type RefoldAnswer = 'refolded' | 'not_a_campaign_call' | 'left_to_the_run';

/**
 * Recomputes the outcome of the person the call was placed to and counts their chunk again.
 * Left to the run while one of the person's calls is in flight (its fold reads every call
 * again). A call-back still owed is dropped once nothing required is missing; a re-read never
 * places a call. Safe to repeat: the result depends only on the calls' current readings.
 */
export async function refoldCampaignCall(db: Db, callId: string, at: Date): Promise<RefoldAnswer> {
  const link = await callLinks(db).findOne({ _id: callId });
  if (!link) return 'not_a_campaign_call';
  const campaign = await campaignCollections(db).campaigns.findOne({ _id: link.campaign_id });
  if (!campaign || campaign.tenant_id !== link.tenant_id) return 'not_a_campaign_call';
  const { recipients } = stagingCollections(db);
  const doc = await recipients.findOne({ _id: recipientId(campaign._id, link.position) });
  const history = doc?.calls ?? [];
  if (!doc || !history.some((c) => c.call_id === callId)) return 'not_a_campaign_call';
  if (doc.call_pending) return 'left_to_the_run';
  const { calls } = callCollections(db);
  const callDocs = await Promise.all(history.map((c) => calls.findOne({ _id: c.call_id })));
  if (callDocs.some((c) => !c || c.result.state === 'pending')) return 'left_to_the_run';
  const read = callDocs as CallDoc[];
  const outcome = mergeCalls(read.map(finishedCall), campaign.capture);
  const owed = doc.state === 'calling' && doc.call_back_due_at;
  const settled = owed && outcome !== null && (outcome.disposition === 'completed' || outcome.missing_required.length === 0);
  await recipients.updateOne(
    { _id: doc._id },
    {
      $set: {
        calls: read.map((call, i) => callEntry(call, history[i]!.kind)),
        outcome,
        ...(settled ? { state: 'called' as const, state_at: at, call_back_due_at: null } : {}),
      },
    },
  );
  await recount(db, { campaignId: campaign._id, tenantId: campaign.tenant_id, recipients: campaign.recipients, chunks: [chunkOf(link.position)], at });
  return 'refolded';
}
