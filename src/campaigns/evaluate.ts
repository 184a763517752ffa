import type { Db } from 'mongodb';
import { collections, type TemplateDoc, type WorkspaceDoc } from '../db/collections';
import { suppressedNumbers, selectTemplateVariant, placeholderNumbers } from '../messaging';
import type { AudienceCache } from './audienceCache';
import { classifyAudience, recipientChecksum, resolveAudience, type InvalidRow, type Recipient, type ResolvedAudience } from './audience';
import { EXCLUSION_REASONS, type CampaignDoc, type ExclusionReason } from './campaign';
import { campaignChannel } from './channels';
import { emptyAudienceFinding, exclusionFinding, finding, type Finding } from './evaluationFindings';
import { CAMPAIGN_LIMITS } from './limits';
import { campaignSettingsOf } from './settings';
import { byPlaceholderNumber } from './templateTokens';
import type { VoiceReadiness } from './voice/readiness';

/**
 * POST /campaigns/{id}/evaluate (campaigns-tickets-dues §2, §4): who a launch now would
 * message and every check it would run on them. The computation is pure (`evaluate`); the
 * reads around it (`evaluateCampaign`) change nothing. Launch runs the same function, and
 * staging writes the same recipient list, so what evaluate showed is what launch sends.
 */

export interface EvaluateResult {
  eligible: number;
  total_rows: number;
  excluded: Partial<Record<ExclusionReason, number>>;
  invalid_rows: InvalidRow[];
  sample: { to: string; name: string | null; variables: Record<string, string> }[];
  findings: Finding[];
  checksum: string;
}

export interface Evaluation {
  result: EvaluateResult;
  /** The exact list the checksum covers, for staging. */
  recipients: Recipient[];
}

/** What the template check found: the approved variant to send, or none. */
export type TemplateLookup = { kind: 'none_needed' } | { kind: 'approved'; template: TemplateDoc } | { kind: 'not_approved' };

export interface EvaluateInput {
  campaign: CampaignDoc;
  workspace: WorkspaceDoc;
  audience: ResolvedAudience;
  suppressed: ReadonlySet<string>;
  template: TemplateLookup;
  /** Null when the sender resolves; otherwise why not. */
  senderProblem: string | null;
  /** Call campaigns: what placing their calls needs (readVoiceReadiness); null for WhatsApp. */
  voice?: VoiceReadiness | null;
}

/** The voice checks (issue 15): voice configured, an active number, the campaign's agent deployed to one. */
function voiceFindings(campaign: CampaignDoc, voice: VoiceReadiness | null, eligible: number): Finding[] {
  if (!voice) return [];
  if (!voice.configured) {
    return [finding('voice_not_configured', 'block', eligible, 'Voice is not configured for this workspace.', 'Configure voice for the workspace in the console.')];
  }
  if (voice.activeNumbers.length === 0) {
    return [finding('no_phone_number', 'block', eligible, 'This workspace has no active phone number to call from.', 'Activate a phone number in the console.')];
  }
  if (voice.agentNumbers.length === 0) {
    return [finding('no_agent_deployed', 'block', eligible, `Agent ${campaign.agent_id} is not deployed to an active number of this workspace.`, 'Deploy the agent to an active number in the console, or create the campaign with the agent that is deployed.')];
  }
  return [];
}

function templateFindings(campaign: CampaignDoc, lookup: TemplateLookup, eligible: number): Finding[] {
  if (lookup.kind === 'none_needed' || !campaign.template) return [];
  const name = campaign.template.name;
  if (lookup.kind === 'not_approved') {
    return [finding('template_not_approved', 'block', eligible, `Template ${name} has no approved variant${campaign.template.language ? ` for ${campaign.template.language}` : ''}.`, 'Wait for the template to be approved, or choose an approved one.')];
  }
  const found = lookup.template;
  const out: Finding[] = [];
  const body = placeholderNumbers(found.body).length;
  const given = campaign.template.variables.length;
  const headerPlaceholders = found.header?.type === 'text' ? placeholderNumbers(found.header.text).length : 0;
  const dynamicButtons = found.buttons.some((b) => b.type === 'url' && placeholderNumbers(b.url).length > 0);
  if (body !== given) {
    out.push(finding('template_variables', 'block', eligible, `Template ${name} (${found.language}): the body has ${body} placeholders but the campaign gives ${given} variables.`, `Give exactly ${body} variables.`));
  } else if (headerPlaceholders > 0 || dynamicButtons) {
    out.push(finding('template_variables', 'block', eligible, `Template ${name} (${found.language}) has ${headerPlaceholders > 0 ? 'header' : 'URL button'} placeholders; a campaign fills body placeholders only.`, 'Choose a template whose placeholders are all in the body.'));
  }
  if (found.header && found.header.type !== 'text' && !found.header.media_url) {
    out.push(finding('template_media_missing', 'block', eligible, `Template ${name} (${found.language}) has a${found.header.type === 'image' ? 'n image' : ' video'} header with no file attached.`, 'Attach the header file to the template in the console.'));
  }
  return out;
}

export function evaluate(input: EvaluateInput): Evaluation {
  const { campaign, workspace } = input;
  const settings = campaignSettingsOf(workspace);
  const classified = classifyAudience(input.audience.rows, {
    variables: campaign.template?.variables ?? [],
    suppressed: input.suppressed,
    country: workspace.country,
    ...campaignChannel(campaign.channel).classifyOptions(campaign, workspace),
  });
  const eligible = classified.recipients.length;
  const findings: Finding[] = [];
  if (eligible > CAMPAIGN_LIMITS.recipientCeiling) {
    findings.push(finding('audience_too_large', 'block', eligible, `${eligible} people are more than the ${CAMPAIGN_LIMITS.recipientCeiling} a campaign can reach.`, 'Split the audience into several campaigns.'));
  } else if (eligible > settings.max_recipients_per_campaign) {
    findings.push(finding('plan_limit', 'block', eligible, `${eligible} people are more than the ${settings.max_recipients_per_campaign} your plan allows per campaign.`, 'Narrow the audience, or upgrade the plan.'));
  }
  if (eligible === 0) {
    findings.push(emptyAudienceFinding({ audience: campaign.audience, matched: classified.totalRows, excluded: classified.excluded }));
  }
  findings.push(...templateFindings(campaign, input.template, eligible));
  findings.push(...voiceFindings(campaign, input.voice ?? null, eligible));
  if (input.senderProblem) {
    findings.push(finding('channel_not_connected', 'block', eligible, input.senderProblem, 'Connect the sender, or leave sender_id out to use the default sender.'));
  }
  for (const reason of EXCLUSION_REASONS) {
    const count = classified.excluded[reason];
    if (count) findings.push(exclusionFinding(reason, count, { list: campaign.audience.kind === 'uploaded_list' }));
  }
  const { requested_start_hour: askedStart, requested_end_hour: askedEnd, send_window_start_hour: start, send_window_end_hour: end } = campaign.schedule;
  if ((askedStart !== null && askedStart < start) || (askedEnd !== null && askedEnd > end)) {
    findings.push(finding('quiet_hours', 'warn', eligible, `Sending hours were clamped to ${start}:00 to ${end}:00 (${campaign.schedule.timezone}).`, `Ask for hours within ${start}:00 to ${end}:00.`));
  }
  if (input.audience.unmatched > 0) {
    findings.push(finding('contacts_not_found', 'info', input.audience.unmatched, `${input.audience.unmatched} contact ${input.audience.unmatched === 1 ? 'id matches' : 'ids match'} no contact of this workspace and ${input.audience.unmatched === 1 ? 'was' : 'were'} dropped.`, 'Check the ids, or leave them: they are ignored.'));
  }
  return {
    recipients: classified.recipients,
    result: {
      eligible,
      total_rows: classified.totalRows,
      excluded: classified.excluded,
      invalid_rows: classified.invalidRows,
      // A call campaign's sample shows the purpose and script as the person's call would carry them.
      sample: classified.recipients.slice(0, CAMPAIGN_LIMITS.samples).map((r) => ({ to: r.to, name: r.name, variables: r.call ? callVariables(r.call) : byPlaceholderNumber(r.variables) })),
      findings,
      checksum: recipientChecksum(classified.recipients),
    },
  };
}

function callVariables(call: NonNullable<Recipient['call']>): Record<string, string> {
  const out: Record<string, string> = {};
  if (call.purpose !== null) out.purpose = call.purpose;
  if (call.script !== null) out.script = call.script;
  return out;
}

export async function lookupTemplate(db: Db, campaign: CampaignDoc): Promise<TemplateLookup> {
  // Only a channel that sends templates stores one (create refuses it elsewhere).
  if (!campaign.template) return { kind: 'none_needed' };
  const variants = await collections(db).templates.find({ tenant_id: campaign.tenant_id, name: campaign.template.name }).toArray();
  const chosen = selectTemplateVariant(variants, campaign.template.language);
  return chosen ? { kind: 'approved', template: chosen } : { kind: 'not_approved' };
}

/**
 * Reads the audience, opt-outs, template and sender, then evaluates; writes nothing. The API
 * passes its audience cache, so a launch reuses its evaluate's contact rows (audienceCache.ts).
 */
export async function evaluateCampaign(db: Db, campaign: CampaignDoc, workspace: WorkspaceDoc, options: { audiences?: AudienceCache } = {}): Promise<Evaluation> {
  const [audience, suppressed, template, { senderProblem, voice }] = await Promise.all([
    options.audiences ? options.audiences.resolve(db, campaign) : resolveAudience(db, campaign),
    suppressedNumbers(db, campaign.tenant_id),
    lookupTemplate(db, campaign),
    campaignChannel(campaign.channel).readReadiness(db, campaign, workspace),
  ]);
  return evaluate({ campaign, workspace, audience, suppressed, template, senderProblem, voice });
}
