import { ERROR_STATUS } from '../../../api/errorCodes';
import { ApiError, errorEnvelope, fromStatus, toApiError } from '../../../api/errors';
import { CallRefusal } from '../../../src/calls/guards';
import { IdentityConflictError, MissingIdentityError } from '../../../src/contacts/contacts';
import { Refusal } from '../../../src/domain/refusal';
import { SendRefusal } from '../../../src/messaging/sendMessage';
import { CampaignRefusal, guardrail, versionConflict } from '../../../src/campaigns/refusal';
import { docsFor } from '../../../src/campaigns/evaluationFindings';
import { paymentChanged, wrongStatus } from '../../../src/dues/refusal';
import { WebhookRefusal } from '../../../src/webhooks/refusal';

const ids = { requestId: 'req_1', correlationId: 'cor_1' };

describe('the error envelope', () => {
  it('has exactly the nine codes with their statuses', () => {
    expect(ERROR_STATUS).toEqual({
      invalid_argument: 400,
      unauthenticated: 401,
      permission_denied: 403,
      not_found: 404,
      conflict: 409,
      failed_precondition: 412,
      rate_limited: 429,
      internal: 500,
      provider_error: 502,
    });
  });

  it('always carries details as an object and both ids', () => {
    expect(errorEnvelope(new ApiError('not_found', 'Call not found.'), ids)).toEqual({
      error: { code: 'not_found', message: 'Call not found.', details: {}, request_id: 'req_1', correlation_id: 'cor_1' },
    });
  });

  it('maps an unnamed 4xx to invalid_argument keeping its status', () => {
    const err = fromStatus(405);
    expect([err.code, err.status]).toEqual(['invalid_argument', 405]);
  });

  it('maps an unnamed 5xx to internal keeping its status', () => {
    const err = fromStatus(503);
    expect([err.code, err.status, err.message]).toEqual(['internal', 503, 'Internal server error.']);
  });

  it('hides an unhandled exception behind 500 Internal server error.', () => {
    const err = toApiError(new Error('secret stack detail'));
    expect([err.code, err.status, err.message, err.details]).toEqual(['internal', 500, 'Internal server error.', {}]);
  });
});

describe('domain refusals (api/refusals.ts): one table for every feature', () => {
  it('maps a reason to its code, with the reason in details', () => {
    const err = toApiError(new CallRefusal('call_concurrency', 'This workspace already has 10 live calls.', { limit: 10 }));
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', message: 'This workspace already has 10 live calls.', details: { reason: 'call_concurrency', limit: 10 } });
    expect(toApiError(new SendRefusal('session_window_closed', 'Closed.'))).toMatchObject({ status: 409, code: 'conflict', details: { reason: 'session_window_closed' } });
    expect(toApiError(new IdentityConflictError(['c1', 'c2']))).toMatchObject({
      status: 409,
      code: 'conflict',
      message: 'Those details belong to two different contacts.',
      details: { reason: 'identity_conflict' },
    });
  });

  it('leaves the reason out where the contract shows none', () => {
    expect(toApiError(new SendRefusal('provider_error', 'WhatsApp provider refused the message: x', { provider_code: 131026 }))).toMatchObject({
      status: 502,
      code: 'provider_error',
      details: { provider_code: 131026 },
    });
    expect(toApiError(new CallRefusal('destination_too_short', 'That destination number is too short.'))).toMatchObject({ status: 400, details: {} });
    expect(toApiError(new MissingIdentityError())).toMatchObject({ status: 400, message: 'Provide an email or a phone number.', details: {} });
  });

  it('answers the same reason by its feature: a missing template is 404 for a message, 400 for a campaign draft', () => {
    expect(toApiError(new SendRefusal('template_not_found', 'No approved template named x.'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(toApiError(new SendRefusal('template_variables', 'x'))).toMatchObject({ status: 400, code: 'invalid_argument' });
    const draft = toApiError(new CampaignRefusal('template_not_found', 'A WhatsApp campaign needs a template.', { field: 'template' }));
    expect(draft).toMatchObject({ status: 400, code: 'invalid_argument' });
    expect(draft.details).toEqual({ reason: 'template_not_found', field: 'template' });
    // A launch blocked by the same finding code is a guardrail: 412.
    expect(toApiError(guardrail('template_variables', 'x', 'y'))).toMatchObject({ status: 412, code: 'failed_precondition' });
  });

  it('answers a campaign version conflict with 409 and a guardrail with 412, reason first then docs and fix', () => {
    const stale = toApiError(versionConflict(3, 1));
    expect(stale).toMatchObject({ status: 409, code: 'conflict', message: 'This campaign is at version 3, not 1; read it again.' });
    expect(JSON.stringify(stale.details)).toBe('{"reason":"version_conflict","current_version":3}');
    const frozen = toApiError(guardrail('campaign_frozen', 'This campaign is running.', 'Create a new campaign.'));
    expect(frozen).toMatchObject({ status: 412, code: 'failed_precondition', message: 'This campaign is running.' });
    expect(JSON.stringify(frozen.details)).toBe(JSON.stringify({ reason: 'campaign_frozen', docs: docsFor('campaign_frozen'), fix: 'Create a new campaign.' }));
  });

  it('answers a due refusal the same way for every surface: 409 version_conflict, 412 conflict with the status', () => {
    const changed = toApiError(paymentChanged(4));
    expect(changed).toMatchObject({ status: 409, code: 'conflict', message: 'This payment changed since it was read; read it again and send its current version.' });
    expect(JSON.stringify(changed.details)).toBe('{"reason":"version_conflict","current_version":4}');
    const paid = toApiError(wrongStatus('This payment is already paid.', 'waived'));
    expect(paid).toMatchObject({ status: 412, code: 'failed_precondition', message: 'This payment is already paid.' });
    expect(JSON.stringify(paid.details)).toBe('{"reason":"conflict","current_status":"waived"}');
  });

  it('answers a webhook endpoint refusal with the code and details the console routes always gave', () => {
    const cases: [WebhookRefusal, number, string, string][] = [
      [new WebhookRefusal('webhook_limit_reached', 'At most 20.', { limit: 20 }), 409, 'conflict', '{"reason":"webhook_limit_reached","limit":20}'],
      [
        new WebhookRefusal('webhook_url_private', 'Private.', { host: 'h.test', address: '10.0.0.5' }),
        400,
        'invalid_argument',
        '{"reason":"webhook_url_private","host":"h.test","address":"10.0.0.5"}',
      ],
      [new WebhookRefusal('webhook_url_unresolvable', 'Unresolvable.', { host: 'h.test' }), 400, 'invalid_argument', '{"reason":"webhook_url_unresolvable","host":"h.test"}'],
      [new WebhookRefusal('webhook_secret_rotating', 'Rotating.'), 409, 'conflict', '{"reason":"webhook_secret_rotating"}'],
      [new WebhookRefusal('webhook_disabled', 'Disabled.'), 412, 'failed_precondition', '{"reason":"webhook_disabled"}'],
    ];
    for (const [refusal, status, code, details] of cases) {
      const answered = toApiError(refusal);
      expect({ status: answered.status, code: answered.code, message: answered.message, details: JSON.stringify(answered.details) }).toEqual({ status, code, message: refusal.message, details });
    }
  });

  it('answers a reason missing from the table as an unhandled error', () => {
    expect(toApiError(new Refusal('not_in_the_table', 'x'))).toMatchObject({ status: 500, code: 'internal', message: 'Internal server error.', details: {} });
  });
});
