import { ApiError, ERROR_STATUS, errorEnvelope, fromStatus, toApiError } from '../../api/errors';

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
