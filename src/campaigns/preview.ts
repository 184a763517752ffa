import type { Db } from 'mongodb';
import type { WorkspaceDoc } from '../db/collections';
import { findList } from '../lists';
import { resolveSender } from '../messaging';
import type { AudienceCache } from './audienceCache';
import type { CampaignDoc } from './campaign';
import { evaluateCampaign, lookupTemplate } from './evaluate';
import { readRecipientBatch } from './staging';
import { byPlaceholderNumber } from './templateTokens';

/**
 * What a campaign sends and to whom, in words an operator checks before launching (the
 * campaign page and the launch dialog): the template's text with the placeholders filled for
 * one real person of the audience, the sender, and the audience (its tags, its list, or how
 * many contacts by id). A call campaign's purpose and script are filled the same way.
 *
 * The sample person is the first one staged once the campaign is launched (what was sent),
 * else the first eligible one evaluate finds (what would be sent; evaluate is read-only and the
 * console's audience cache makes the launch dialog's second ask cheap).
 */

export interface CampaignPreview {
  channel: string;
  audience: { kind: string; tags: string[]; list_id: string | null; list_name: string | null; contact_id_count: number; words: string };
  sender: { sender_id: string; display_name: string; phone: string } | null;
  /** Why there is no sender to show (none connected, or the one named is not), when there is none. */
  sender_problem: string | null;
  template: { name: string; language: string | null; body: string | null; header: string | null } | null;
  sample: { name: string | null; to: string; from: 'staged' | 'evaluation' } | null;
  /** The template body with the sample person's values in place of `{{1}}`, `{{2}}`…; null without a body or a sample. */
  message: string | null;
  /** Call campaigns: the purpose and script with the sample person's details filled (as stored when there is no sample). */
  purpose: string | null;
  script: string | null;
}

const PLACEHOLDER = /\{\{\s*(\d+)\s*\}\}/g;

/** The body with each `{{n}}` replaced by its value; a value missing stays as the placeholder, so a gap shows. */
export function fillPlaceholders(body: string, values: Record<string, string>): string {
  return body.replace(PLACEHOLDER, (whole, n: string) => values[n] ?? whole);
}

function audienceWords(c: CampaignDoc, listName: string | null): string {
  const a = c.audience;
  if (a.kind === 'segment') return `Contacts tagged ${a.tags.map((t) => `“${t}”`).join(' and ')}`;
  if (a.kind === 'uploaded_list') return `The uploaded list ${listName ? `“${listName}”` : a.list_id}`;
  return `${a.contact_id_count.toLocaleString('en-US')} contact${a.contact_id_count === 1 ? '' : 's'} chosen by id`;
}

export async function previewCampaign(db: Db, campaign: CampaignDoc, workspace: WorkspaceDoc, options: { audiences?: AudienceCache } = {}): Promise<CampaignPreview> {
  const sendsTemplates = campaign.template !== null;
  const [list, sender, template, staged] = await Promise.all([
    campaign.audience.list_id ? findList(db, campaign.tenant_id, campaign.audience.list_id) : null,
    sendsTemplates ? resolveSender(db, campaign.tenant_id, campaign.sender_id) : null,
    lookupTemplate(db, campaign),
    campaign.recipients > 0 ? readRecipientBatch(db, campaign._id, 0, 1) : [],
  ]);
  let sample: CampaignPreview['sample'] = null;
  let values: Record<string, string> = {};
  let purpose = campaign.purpose;
  let script = campaign.script;
  const first = staged[0];
  if (first) {
    sample = { name: first.name, to: first.to, from: 'staged' };
    values = byPlaceholderNumber(first.variables);
    purpose = first.purpose ?? purpose;
    script = first.script ?? script;
  } else if (campaign.status === 'draft') {
    const found = (await evaluateCampaign(db, campaign, workspace, options)).result.sample[0];
    if (found) {
      sample = { name: found.name, to: found.to, from: 'evaluation' };
      values = found.variables;
      purpose = found.variables.purpose ?? purpose;
      script = found.variables.script ?? script;
    }
  }
  const chosen = template.kind === 'approved' ? template.template : null;
  const header = chosen?.header?.type === 'text' ? chosen.header.text : null;
  return {
    channel: campaign.channel,
    audience: {
      kind: campaign.audience.kind,
      tags: campaign.audience.tags,
      list_id: campaign.audience.list_id ?? null,
      list_name: list?.name ?? null,
      contact_id_count: campaign.audience.contact_id_count,
      words: audienceWords(campaign, list?.name ?? null),
    },
    sender: sender?.ok ? { sender_id: sender.sender._id, display_name: sender.sender.display_name, phone: sender.sender.phone } : null,
    sender_problem: sender && !sender.ok ? sender.message : null,
    template: campaign.template && { name: campaign.template.name, language: chosen?.language ?? campaign.template.language, body: chosen?.body ?? null, header },
    sample,
    message: chosen && sample ? fillPlaceholders(chosen.body, values) : null,
    purpose,
    script,
  };
}
