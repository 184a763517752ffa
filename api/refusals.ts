import type { CallRefusalReason } from '../src/calls/guards';
import type { IdentityConflictError, MissingIdentityError } from '../src/contacts/contacts';
import type { Refusal } from '../src/domain/refusal';
import type { SendRefusalReason } from '../src/messaging/sendMessage';
import type { UnknownAssigneeError } from '../src/tickets/consoleTicketActions';
import type { ErrorCode } from './errorCodes';

type RefusalReason =
  | CallRefusalReason
  | SendRefusalReason
  | IdentityConflictError['reason']
  | MissingIdentityError['reason']
  | UnknownAssigneeError['reason'];

/** Where each domain refusal sits among the nine codes (api-core §7). One table for every feature. */
const REFUSAL_CODES: Record<RefusalReason, ErrorCode> = {
  // Calls (api-core §7, guard order in src/calls/guards.ts)
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
  // Messages
  empty_message: 'invalid_argument',
  template_variables: 'invalid_argument',
  allowance_exhausted: 'failed_precondition',
  channel_not_connected: 'failed_precondition',
  template_media_missing: 'failed_precondition',
  suppressed: 'permission_denied',
  template_not_found: 'not_found',
  session_window_closed: 'conflict',
  provider_error: 'provider_error',
  // Contacts
  identity_conflict: 'conflict',
  missing_identity: 'invalid_argument',
  // Tickets (console)
  unknown_assignee: 'invalid_argument',
};

/**
 * Refusals the contract shows without `details.reason`: a provider refusal carries the
 * provider's fields only, an unusable or too-short destination and a missing contact
 * identity are plain 400s (api-core §7).
 */
const UNSTATED_REASONS = new Set<string>(['provider_error', 'destination_too_short', 'destination_unusable', 'missing_identity']);

/**
 * The parts of the envelope a refusal becomes (`toApiError` builds it); null for a reason
 * missing from the table, which is then answered as an unhandled error and logged.
 */
export function refusalParts(refusal: Refusal): { code: ErrorCode; message: string; details: Record<string, unknown> } | null {
  const code = (REFUSAL_CODES as Record<string, ErrorCode | undefined>)[refusal.reason];
  if (!code) return null;
  const details = UNSTATED_REASONS.has(refusal.reason) ? refusal.details : { reason: refusal.reason, ...refusal.details };
  return { code, message: refusal.message, details };
}
