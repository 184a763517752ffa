import type { Db } from 'mongodb';
import { findCampaign, type CampaignDoc } from '../../src/campaigns/campaign';
import { campaignChannel } from '../../src/campaigns/channels';
import type { CreateRefusal, Drafted } from '../../src/campaigns/createCampaign';
import type { ControlAction, ControlResult } from '../../src/campaigns/control';
import { docsFor } from '../../src/campaigns/evaluationFindings';
import { recipientPage } from '../../src/campaigns/listing';
import { streamOutcomesCsv } from '../../src/campaigns/voice/outcomes/served';
import { ApiError, found } from '../errors';
import type { CursorCodec } from '../pagination';
import type { RouteContext } from '../route';
import { validationError } from '../validation';
import { recipientView } from './campaigns.schema';

/** How a campaign use case's answer becomes the HTTP answer, for the public routes and the console alike; and the reads both surfaces answer alike. */

export const CAMPAIGN_NOT_FOUND = 'Campaign not found.';

/** The outcome routes' guard (the public routes and the console alike): 412 `not_a_call_campaign` on a WhatsApp campaign. */
export function requireCallCampaign(campaign: CampaignDoc): CampaignDoc {
  const channel = campaignChannel(campaign.channel);
  if (!channel.countsCalls) {
    throw new ApiError('failed_precondition', `This is a ${channel.label} campaign; outcome reports are for call campaigns.`, {
      reason: 'not_a_call_campaign',
      docs: docsFor('not_a_call_campaign'),
      fix: `Read GET /campaigns/{campaign_id}/recipients for a ${channel.label} campaign’s per-person states.`,
    });
  }
  return campaign;
}

/** A control's answer, or its refusal as the envelope (the public routes and the console alike). */
export function answerControl(result: ControlResult): Extract<ControlResult, { kind: 'done' }> {
  if (result.kind === 'not_found') throw new ApiError('not_found', CAMPAIGN_NOT_FOUND);
  // A refusal goes up as it is: the error handler answers it (api/refusals.ts).
  if (result.kind === 'refused') throw result.refusal;
  return result;
}

/** A create's draft, or its refusal as the envelope (the public routes and the console alike): a reason with its `field`, or a field rule's validation failure. */
export function answerCreate(result: Drafted | CreateRefusal): Drafted {
  if (result.kind === 'refused') throw result.refusal;
  if (result.kind === 'invalid_field') throw validationError([{ loc: result.loc, msg: result.msg, type: result.type }]);
  return result;
}

export const CONTROL_SUMMARIES: Record<Exclude<ControlAction, 'launch' | 'archive'>, string> = {
  pause: 'Stop sending for now (a scheduled or running campaign). Pausing a paused campaign changes nothing.',
  resume: 'Continue a paused campaign where it stopped: nobody is sent twice and the audience is not rebuilt.',
  cancel: 'Stop for good: everyone not yet sent is skipped and completed_at is set.',
};

/** The workspace's campaign, or its 404. */
export async function campaignOf(db: Db, tenantId: string, campaignId: string): Promise<CampaignDoc> {
  return found(await findCampaign(db, tenantId, campaignId), CAMPAIGN_NOT_FOUND);
}

/**
 * A page of a campaign's staged people in audience order, `{items, next_cursor}`. Pages by
 * position: the next page's keys are known, so each is read by `_id`. `list` names the
 * surface's cursor list, so one surface's cursor is refused by the other.
 */
export async function recipientsAnswer(db: Db, cursors: CursorCodec, list: string, campaign: CampaignDoc, { limit, cursor }: { limit: number; cursor?: string }) {
  const tenantId = campaign.tenant_id;
  const of = `${list}:${campaign._id}`;
  const from = cursor ? Number((cursors.decode(cursor, tenantId, of) as [unknown])[0]) : 0;
  const { docs, next } = await recipientPage(db, campaign, from, limit);
  return { items: docs.map(recipientView), next_cursor: next === null ? null : cursors.encode(tenantId, of, [next]) };
}

/** A call campaign's outcomes as a CSV download, streamed. */
export function sendOutcomesCsv(ctx: RouteContext, db: Db, campaign: CampaignDoc): void {
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${campaign._id}-outcomes.csv"`);
  ctx.body = streamOutcomesCsv(db, campaign);
}
