import { OrchestratorApiError } from '../../../src/client';

/** The error envelope (api-core §7) as the client's typed error. */
describe('OrchestratorApiError', () => {
  const response = (status: number, body: string, headers: Record<string, string> = {}) =>
    new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });

  it('carries the envelope: code, reason, message, details, status, request and correlation ids', () => {
    const envelope = {
      error: {
        code: 'failed_precondition',
        message: 'That sender is not connected to this workspace.',
        details: { reason: 'channel_not_connected', sender_id: 'snd_x' },
        request_id: 'req_0123',
        correlation_id: 'cor_abc',
      },
    };
    const err = OrchestratorApiError.fromResponse(response(412, JSON.stringify(envelope), { 'x-extra': '1' }), envelope);
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(OrchestratorApiError);
    expect(err.name).toBe('OrchestratorApiError');
    expect({ status: err.status, code: err.code, reason: err.reason, message: err.message, details: err.details, requestId: err.requestId, correlationId: err.correlationId }).toEqual({
      status: 412,
      code: 'failed_precondition',
      reason: 'channel_not_connected',
      message: 'That sender is not connected to this workspace.',
      details: { reason: 'channel_not_connected', sender_id: 'snd_x' },
      requestId: 'req_0123',
      correlationId: 'cor_abc',
    });
    expect(err.headers.get('x-extra')).toBe('1');
  });

  it('has a null reason when details carry none (schema validation failures)', () => {
    const envelope = {
      error: {
        code: 'invalid_argument',
        message: 'Request validation failed.',
        details: { errors: [{ loc: ['body', 'to'], msg: 'Required', type: 'invalid_type' }] },
        request_id: 'req_1',
        correlation_id: 'cor_1',
      },
    };
    const err = OrchestratorApiError.fromResponse(response(400, JSON.stringify(envelope)), envelope);
    expect(err.reason).toBeNull();
    expect(err.details.errors).toEqual([{ loc: ['body', 'to'], msg: 'Required', type: 'invalid_type' }]);
  });

  it('keeps an unnamed status with its code (405 invalid_argument)', () => {
    const envelope = { error: { code: 'invalid_argument', message: 'x', details: {}, request_id: 'req_2', correlation_id: 'cor_2' } };
    const err = OrchestratorApiError.fromResponse(response(405, JSON.stringify(envelope), { allow: 'GET' }), envelope);
    expect([err.status, err.code, err.headers.get('allow')]).toEqual([405, 'invalid_argument', 'GET']);
  });

  it('a body that is not the envelope (a proxy’s page): the code by status (rule 2), no request id', () => {
    const html = new OrchestratorApiError(504, null);
    expect([html.status, html.code, html.reason, html.requestId, html.message]).toEqual([504, 'internal', null, null, "HTTP 504 without the API's error envelope."]);
    expect(OrchestratorApiError.fromResponse(response(429, 'slow down'), 'slow down').code).toBe('rate_limited');
    expect(OrchestratorApiError.fromResponse(response(418, ''), '').code).toBe('invalid_argument');
    expect(OrchestratorApiError.fromResponse(response(502, '<html>'), '<html>').code).toBe('provider_error');
  });
});
