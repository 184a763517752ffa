import { DEFAULT_RETRY_POLICY, retryDelay, type AttemptOutcome, type RetryContext } from '../../../src/client/retry';

/** The client's retry decisions against the contract's guidance (api-core §4, §7, §8). */
describe('retryDelay', () => {
  const now = new Date('2026-11-23T04:10:42.300Z');
  const ctx = (over: Partial<RetryContext> = {}): RetryContext => ({ retries: 0, policy: DEFAULT_RETRY_POLICY, now, random: () => 0, ...over });
  const answered = (status: number, reason: string | null, over: Partial<Extract<AttemptOutcome, { kind: 'response' }>> = {}): AttemptOutcome => ({
    kind: 'response',
    method: 'POST',
    status,
    reason,
    details: reason ? { reason } : {},
    headers: new Headers(),
    keyed: true,
    ...over,
  });
  const lost = (method: string, code: string): AttemptOutcome => ({
    kind: 'network',
    method,
    // As undici reports it: TypeError('fetch failed') with the socket error as its cause.
    error: Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) }),
  });

  describe('429 rate_limited', () => {
    it('waits for the next minute boundary of the server’s clock (its Date header), plus up to a second of spread', () => {
      const headers = new Headers({ date: 'Mon, 23 Nov 2026 04:09:15 GMT' });
      expect(retryDelay(answered(429, 'rate_limited', { headers }), ctx())).toBe(45_000);
      expect(retryDelay(answered(429, 'rate_limited', { headers }), ctx({ random: () => 0.5 }))).toBe(45_500);
    });

    it('uses the client’s clock when the response has no Date', () => {
      expect(retryDelay(answered(429, 'rate_limited'), ctx())).toBe(17_700);
    });

    it('waits Retry-After instead when one is sent (seconds or a date)', () => {
      expect(retryDelay(answered(429, 'rate_limited', { headers: new Headers({ 'retry-after': '7' }) }), ctx())).toBe(7_000);
      expect(retryDelay(answered(429, 'rate_limited', { headers: new Headers({ 'retry-after': 'Mon, 23 Nov 2026 04:10:50 GMT' }) }), ctx())).toBe(7_700);
    });

    it('treats a 429 with no reason as the rate limit', () => {
      expect(retryDelay(answered(429, null, { headers: new Headers({ date: 'Mon, 23 Nov 2026 04:09:59 GMT' }) }), ctx())).toBe(1_000);
    });
  });

  it('429 call_concurrency: requeues after tens of seconds, not at the minute boundary', () => {
    const headers = new Headers({ date: 'Mon, 23 Nov 2026 04:09:59 GMT' });
    expect(retryDelay(answered(429, 'call_concurrency', { headers }), ctx())).toBe(30_000);
    expect(retryDelay(answered(429, 'call_concurrency', { headers }), ctx({ random: () => 0.99 }))).toBe(37_425);
  });

  it('429 daily_call_budget: not retried (it holds until 00:00 UTC)', () => {
    expect(retryDelay(answered(429, 'daily_call_budget'), ctx())).toBeNull();
  });

  it('never retries a 412, whatever its reason or method', () => {
    for (const reason of ['channel_not_connected', 'allowance_exhausted', 'wallet_empty', 'unsupported_resource', null]) {
      expect(retryDelay(answered(412, reason), ctx())).toBeNull();
      expect(retryDelay(answered(412, reason, { method: 'GET' }), ctx())).toBeNull();
    }
  });

  it('never retries the other 4xx', () => {
    for (const [status, reason] of [
      [400, null],
      [400, 'empty_message'],
      [401, 'invalid_api_key'],
      [403, 'missing_scope'],
      [404, null],
      [405, null],
      [409, 'idempotency_key_reuse'],
      [409, 'session_window_closed'],
      [413, null],
    ] as const) {
      expect(retryDelay(answered(status, reason), ctx())).toBeNull();
      expect(retryDelay(answered(status, reason, { method: 'GET' }), ctx())).toBeNull();
    }
  });

  it('409 idempotency_in_progress: waits details.retry_after_seconds when the request carries its key', () => {
    const inProgress = (keyed: boolean) => answered(409, 'idempotency_in_progress', { details: { reason: 'idempotency_in_progress', retry_after_seconds: 2 }, keyed });
    expect(retryDelay(inProgress(true), ctx())).toBe(2_000);
    expect(retryDelay(inProgress(false), ctx())).toBeNull();
  });

  it('502 provider_error: backs off for any method, doubling, half fixed and half random, up to the cap', () => {
    const refused = answered(502, null);
    expect(retryDelay(refused, ctx())).toBe(250);
    expect(retryDelay(refused, ctx({ random: () => 0.999999 }))).toBe(500);
    expect(retryDelay(refused, ctx({ retries: 2 }))).toBe(1_000);
    const capped = { ...DEFAULT_RETRY_POLICY, maxRetries: 20 };
    expect(retryDelay(refused, ctx({ retries: 10, policy: capped }))).toBe(DEFAULT_RETRY_POLICY.maxDelayMs / 2);
  });

  it('other 5xx: backs off for GET and HEAD only; a create is not repeated (confirm before retrying)', () => {
    expect(retryDelay(answered(500, null, { method: 'GET' }), ctx())).toBe(250);
    expect(retryDelay(answered(500, null, { method: 'HEAD' }), ctx({ retries: 1 }))).toBe(500);
    expect(retryDelay(answered(500, 'originate_failed'), ctx())).toBeNull();
    expect(retryDelay(answered(503, 'unavailable', { method: 'PATCH' }), ctx())).toBeNull();
    expect(retryDelay(answered(503, 'unavailable', { method: 'GET', headers: new Headers({ 'retry-after': '5' }) }), ctx())).toBe(5_000);
  });

  it('a connection that never opened is retried for any method; one lost after sending only for reads', () => {
    expect(retryDelay(lost('POST', 'ECONNREFUSED'), ctx())).toBe(250);
    expect(retryDelay(lost('POST', 'ENOTFOUND'), ctx())).toBe(250);
    expect(retryDelay(lost('POST', 'ECONNRESET'), ctx())).toBeNull();
    expect(retryDelay(lost('POST', 'UND_ERR_SOCKET'), ctx())).toBeNull();
    expect(retryDelay(lost('GET', 'ECONNRESET'), ctx())).toBe(250);
  });

  it('stops after maxRetries, and never waits longer than maxWaitMs', () => {
    expect(retryDelay(answered(502, null), ctx({ retries: 3 }))).toBeNull();
    expect(retryDelay(answered(502, null), ctx({ policy: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 } }))).toBeNull();
    expect(retryDelay(answered(429, 'rate_limited', { headers: new Headers({ 'retry-after': '3600' }) }), ctx())).toBeNull();
  });
});
