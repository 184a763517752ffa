import { BusinessToolRefusal, type BusinessToolRefusalReason } from '../src/businessTools';
import { KeyIssueRefusal, type KeyIssueRefusalReason } from '../src/auth/keyRefusal';
import { AgentRefusal, type AgentRefusalReason } from '../src/agents/teamActions';
import { CallRefusal, type CallRefusalReason } from '../src/calls/guards';
import { CampaignRefusal, type CampaignRefusalReason } from '../src/campaigns/refusal';
import { IdentityConflictError, MissingIdentityError } from '../src/contacts/contacts';
import type { Refusal } from '../src/domain/refusal';
import { DueRefusal, type DueRefusalReason } from '../src/dues/refusal';
import { KnowledgeRefusal, type KnowledgeRefusalReason } from '../src/knowledge';
import { SendRefusal, type SendRefusalReason } from '../src/messaging/sendMessage';
import { UnknownAssigneeError } from '../src/tickets/consoleTicketActions';
import { WebhookRefusal, type WebhookRefusalReason } from '../src/webhooks/refusal';
import type { ErrorCode } from './errorCodes';

/**
 * One kind of refusal and where each of its reasons sits among the nine codes; `otherwise`
 * answers the reasons a section does not list (a campaign's guardrails, all 412).
 */
interface Section {
  kind: abstract new (...args: never[]) => Refusal;
  codes: Partial<Record<string, ErrorCode>>;
  otherwise?: ErrorCode;
}

const section = <Reason extends string>(
  kind: abstract new (...args: never[]) => Refusal<Reason>,
  codes: Record<Reason, ErrorCode> | { codes: Partial<Record<Reason, ErrorCode>>; otherwise: ErrorCode },
): Section => ('otherwise' in codes ? { kind, codes: codes.codes as Partial<Record<string, ErrorCode>>, otherwise: codes.otherwise as ErrorCode } : { kind, codes });

/**
 * Where each domain refusal sits among the nine codes (api-core §7). One table for every
 * feature, a section per kind of refusal: the same reason may sit differently in two features
 * (a missing template is 404 for a message, 400 for a campaign draft).
 */
const REFUSAL_CODES: Section[] = [
  // Calls (api-core §7, guard order in src/calls/guards.ts)
  section<CallRefusalReason>(CallRefusal, {
    unsupported_channel: 'failed_precondition',
    voice_not_configured: 'failed_precondition',
    workspace_suspended: 'failed_precondition',
    wallet_empty: 'failed_precondition',
    channel_dormant: 'failed_precondition',
    destination_too_short: 'invalid_argument',
    destination_unusable: 'invalid_argument',
    self_dial: 'invalid_argument',
    destination_blocked: 'permission_denied',
    country_not_allowed: 'permission_denied',
    call_concurrency: 'rate_limited',
    daily_call_budget: 'rate_limited',
    no_phone_number: 'failed_precondition',
    unknown_from_number: 'permission_denied',
    no_agent_deployed: 'failed_precondition',
    agent_number_mismatch: 'failed_precondition',
  }),
  // Messages
  section<SendRefusalReason>(SendRefusal, {
    unsupported_channel: 'failed_precondition',
    workspace_suspended: 'failed_precondition',
    channel_dormant: 'failed_precondition',
    empty_message: 'invalid_argument',
    template_variables: 'invalid_argument',
    allowance_exhausted: 'failed_precondition',
    channel_not_connected: 'failed_precondition',
    template_media_missing: 'failed_precondition',
    suppressed: 'permission_denied',
    template_not_found: 'not_found',
    session_window_closed: 'conflict',
    provider_error: 'provider_error',
  }),
  // Contacts
  section(IdentityConflictError, { identity_conflict: 'conflict' }),
  section(MissingIdentityError, { missing_identity: 'invalid_argument' }),
  // Tickets (console)
  section(UnknownAssigneeError, { unknown_assignee: 'invalid_argument' }),
  // Campaigns (campaigns-tickets-dues §4): a draft's rules are 400, a stale version 409, and
  // every other refusal a launch or control guardrail, 412 with its reason, docs and fix.
  section<CampaignRefusalReason>(CampaignRefusal, {
    codes: { template_not_found: 'invalid_argument', invalid_argument: 'invalid_argument', unknown_variable: 'invalid_argument', version_conflict: 'conflict' },
    otherwise: 'failed_precondition',
  }),
  // Dues (campaigns-tickets-dues §3, §4; the public and the console routes alike)
  section<DueRefusalReason>(DueRefusal, { version_conflict: 'conflict', conflict: 'failed_precondition' }),
  // Webhook endpoints (console; docs/webhooks.md)
  section<WebhookRefusalReason>(WebhookRefusal, {
    webhook_limit_reached: 'conflict',
    webhook_url_private: 'invalid_argument',
    webhook_url_unresolvable: 'invalid_argument',
    webhook_secret_rotating: 'conflict',
    webhook_disabled: 'failed_precondition',
  }),
  // Knowledge documents (console; docs/agents.md "Knowledge"): a file to fix is 400, a full workspace 409
  section<KnowledgeRefusalReason>(KnowledgeRefusal, {
    unsupported_format: 'invalid_argument',
    invalid_encoding: 'invalid_argument',
    invalid_pdf: 'invalid_argument',
    invalid_faq_csv: 'invalid_argument',
    empty_document: 'invalid_argument',
    document_too_large: 'invalid_argument',
    too_many_passages: 'invalid_argument',
    document_limit_reached: 'conflict',
  }),
  // Business HTTP tools (console; docs/agents.md "Business tools")
  section<BusinessToolRefusalReason>(BusinessToolRefusal, {
    tool_name_reserved: 'invalid_argument',
    invalid_parameters_schema: 'invalid_argument',
    tool_url_private: 'invalid_argument',
    tool_url_unresolvable: 'invalid_argument',
    tool_name_taken: 'conflict',
    tool_limit_reached: 'conflict',
  }),
  // API keys (console; docs/console.md "Keys"): a key that could never be used is not made
  section<KeyIssueRefusalReason>(KeyIssueRefusal, { key_scopes_required: 'invalid_argument', key_environment_not_served: 'invalid_argument' }),
  // The chat agent's console inbox (docs/agents.md, "Hand-over")
  section<AgentRefusalReason>(AgentRefusal, { agent_not_running: 'failed_precondition', not_held: 'conflict', already_held: 'conflict' }),
];

/**
 * Refusals the contract shows without `details.reason`: a provider refusal carries the
 * provider's fields only, an unusable or too-short destination and a missing contact
 * identity are plain 400s (api-core §7).
 */
const UNSTATED_REASONS = new Set<string>(['provider_error', 'destination_too_short', 'destination_unusable', 'missing_identity']);

/**
 * The parts of the envelope a refusal becomes (`toApiError` builds it); null for a kind or a
 * reason missing from the table, which is then answered as an unhandled error and logged.
 */
export function refusalParts(refusal: Refusal): { code: ErrorCode; message: string; details: Record<string, unknown> } | null {
  const found = REFUSAL_CODES.find((s) => refusal instanceof s.kind);
  const code = found ? (found.codes[refusal.reason] ?? found.otherwise) : undefined;
  if (!code) return null;
  const details = UNSTATED_REASONS.has(refusal.reason) ? refusal.details : { reason: refusal.reason, ...refusal.details };
  return { code, message: refusal.message, details };
}
