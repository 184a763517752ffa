import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { CallDoc } from '../../calls';
import { findCampaign } from '../campaign';
import { campaignCallEndedSignal, campaignRunWorkflowId } from '../contracts';

/**
 * Tells a call campaign's run that one of its calls ended, so its live-call place is free:
 * a run waiting for a place looks now instead of at its next poll (`CALL_PLACE_POLL_MS`).
 * The call's `metadata` is also the POST /calls caller's, so only a call campaign of the
 * call's own workspace is told (one point read). Throws what the read or the signal throws
 * (the run already ended, the server unreachable); the caller treats that as best effort.
 */
export async function tellCampaignCallEnded(deps: { db: Db; temporal: Client }, call: Pick<CallDoc, '_id' | 'tenant_id' | 'direction' | 'metadata'>): Promise<boolean> {
  const campaignId = call.metadata.campaign_id;
  if (call.direction !== 'outbound' || typeof campaignId !== 'string') return false;
  const campaign = await findCampaign(deps.db, call.tenant_id, campaignId);
  if (campaign?.channel !== 'voice') return false;
  await deps.temporal.workflow.getHandle(campaignRunWorkflowId(campaign._id)).signal(campaignCallEndedSignal, { callId: call._id });
  return true;
}
