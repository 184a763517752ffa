import type { Middleware } from 'koa';
import { LIMITS } from '../../src/domain/limits';
import { IDEMPOTENCY_RENEW_MS, type IdempotencyStore, type ClaimScope, type ClaimResult } from '../../src/idempotency/store';
import type { Logger } from '../../src/observability/logger';
import { keepRenewing, type LeaseRenewal } from '../../src/db/leaseRenewal';
import { isDatabaseUnavailable } from '../../src/db/mongo';
import { lateClaims, type LateClaims } from '../../src/idempotency/lateClaims';
import { ApiError } from '../errors';
import { matchedRoute, type RequestState } from '../context';

const HEADER = 'idempotency-key';
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` for the POST routes that honour it (api-core §4). Runs after the body is
 * read, matching on its raw bytes: same key and body replays the first success without
 * running the handler; a different body is 409 `idempotency_key_reuse`; a key still held by
 * a running request is 409 `idempotency_in_progress`; any 4xx or 5xx releases the key. The
 * running request renews its claim's lease; a claim whose request died is taken over once
 * its lease lapses (src/idempotency/store.ts). A claim whose write the database left
 * unanswered is released once it answers again (src/idempotency/lateClaims.ts), so a retry
 * after an outage runs fresh.
 */
export function idempotency(deps: { store: IdempotencyStore; now?: () => Date }): Middleware<RequestState> {
  const now = deps.now ?? (() => new Date());
  const late = lateClaims(deps.store);
  return async (ctx, next) => {
    const key = ctx.get(HEADER);
    if (!key) return next();
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ApiError('invalid_argument', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
    }
    const scope: ClaimScope = {
      tenantId: ctx.state.apiKey!.tenant_id,
      keyId: ctx.state.apiKey!.key_id,
      endpoint: `${ctx.method} ${matchedRoute(ctx) ?? ctx.path}`,
      idempotencyKey: key,
    };
    const owner = ctx.state.requestId;
    const claim = await claimOrNoteLate(deps.store, late, scope, ctx.state.rawBody ?? Buffer.alloc(0), owner, now(), ctx.state.log);
    switch (claim.kind) {
      case 'replay':
        ctx.status = claim.response.status;
        ctx.type = 'application/json';
        ctx.body = claim.response.body;
        ctx.set('Idempotent-Replayed', 'true');
        return;
      case 'reuse':
        throw new ApiError('conflict', 'This Idempotency-Key was used with a different request body.', { reason: 'idempotency_key_reuse' });
      case 'in_progress':
        throw new ApiError('conflict', 'A request with this Idempotency-Key is still running; retry shortly.', {
          reason: 'idempotency_in_progress',
          retry_after_seconds: LIMITS.idempotencyRetryAfterSeconds,
        });
      case 'claimed':
        ctx.state.idempotency = { recordId: claim.recordId, firstAt: claim.firstAt };
        break;
    }
    const lease = holdLease(deps.store, scope, owner, now, ctx.state.log);
    try {
      await next();
    } catch (err) {
      await lease.stop();
      await deps.store.release(scope, owner);
      throw err;
    }
    await lease.stop();
    if (ctx.status >= 400) {
      await deps.store.release(scope, owner);
    } else {
      await deps.store.complete(scope, owner, { status: ctx.status, body: JSON.stringify(ctx.body) });
    }
  };
}

/**
 * Claims the key. A claim write the database did not answer is noted for release (it may land
 * when the database resumes); a key found held by such a claim is released and claimed again.
 */
async function claimOrNoteLate(
  store: IdempotencyStore,
  late: LateClaims,
  scope: ClaimScope,
  rawBody: Buffer,
  owner: string,
  at: Date,
  log: Logger,
): Promise<ClaimResult> {
  try {
    const claim = await store.claim(scope, rawBody, owner, at);
    if (claim.kind !== 'in_progress' || !claim.holder || !late.holds(scope, claim.holder)) return claim;
    await late.release(scope, claim.holder);
    return await store.claim(scope, rawBody, owner, at);
  } catch (err) {
    if (isDatabaseUnavailable(err)) late.add(scope, owner, log);
    throw err;
  }
}

/**
 * Renews the claim every IDEMPOTENCY_RENEW_MS while the request runs, so a live request
 * keeps its key however long it takes, and a dead one's lapses about a lease after it stopped
 * (LIMITS.idempotencyLeaseSeconds, near the wait a retry is told).
 */
function holdLease(store: IdempotencyStore, scope: ClaimScope, owner: string, now: () => Date, log: Logger): LeaseRenewal {
  return keepRenewing(
    () => store.renew(scope, owner, now()),
    IDEMPOTENCY_RENEW_MS,
    (problem) =>
      problem.lost
        ? log.warn({ endpoint: scope.endpoint }, 'Idempotency-Key taken over while its request was still running')
        : log.warn({ err: problem.err }, 'Idempotency-Key lease renewal failed'),
  );
}
