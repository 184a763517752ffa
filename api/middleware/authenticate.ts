import type { Middleware } from 'koa';
import type { Db } from 'mongodb';
import { API_KEY_PATTERN, hashApiKey, keyRefusal, type KeyEnvironment, type KeyRefusal } from '../../src/auth/apiKeys';
import { CredentialCache } from '../../src/auth/credentialCache';
import type { AuthFailureLimiter } from '../../src/auth/failureLimiter';
import { KeyUseRecorder } from '../../src/auth/keyUses';
import { attemptGuard } from './authFailures';
import { collections } from '../../src/db/collections';
import { ApiError } from '../errors';
import type { RequestState } from '../context';

const unauthenticated = (reason: string, message: string) => new ApiError('unauthenticated', message, { reason });

const REFUSAL_MESSAGES: Record<KeyRefusal, (found: { environment: string }, accepted: string) => string> = {
  revoked_api_key: () => 'That API key has been revoked.',
  expired_api_key: () => 'That API key was rolled and its grace period has ended.',
  wrong_environment: (found, accepted) => `That is a ${found.environment} key; this deployment accepts ${accepted} keys.`,
};

/** The key from `Authorization: Bearer …`, else from `X-Api-Key`. */
function presentedKey(authorization: string, xApiKey: string): string | null {
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    return match ? match[1]!.trim() : authorization.trim();
  }
  return xApiKey ? xApiKey.trim() : null;
}

/**
 * api-core §5, in its order: presence and format (a malformed key is refused without a
 * lookup), lookup, revoked or expired, environment, then workspace standing. A valid key
 * passes however many failures its address has made; past them, the address's refusals are
 * 429 and its lookups wait their turn, unless the key is in the cache or has worked from
 * there (api/middleware/authFailures.ts). The rate limit
 * and the scope check follow as their own middleware. Lookups go through the credential
 * cache: a change made in another API process is seen within its bound; expiry is checked
 * against the clock on every request.
 */
export function authenticate(deps: {
  db: Db;
  environment: KeyEnvironment;
  now?: () => Date;
  cache?: CredentialCache;
  /** Failed attempts per address (src/auth/failureLimiter.ts); none: unlimited. */
  failures?: AuthFailureLimiter;
  /** Where a key's last use is noted (at most once a minute per key). */
  uses?: KeyUseRecorder;
}): Middleware<RequestState> {
  const { apiKeys, workspaces } = collections(deps.db);
  const now = deps.now ?? (() => new Date());
  const cache = deps.cache ?? new CredentialCache();
  const attempts = attemptGuard(deps.failures);
  const uses = deps.uses ?? new KeyUseRecorder(deps.db);
  return async (ctx, next) => {
    const key = presentedKey(ctx.get('authorization'), ctx.get('x-api-key'));
    if (!key) throw unauthenticated('missing_api_key', 'Send an API key as Authorization: Bearer <key> or X-Api-Key.');
    const refuse = (reason: string, message: string) => attempts.failed(ctx, key, unauthenticated(reason, message));
    if (!API_KEY_PATTERN.test(key)) throw refuse('malformed_api_key', 'That API key is not in the expected format.');

    const hash = hashApiKey(key);
    // A key this process holds costs no read; any other from a limited address waits its turn.
    if (!cache.holdsKey(hash)) await attempts.beforeLookup(ctx, key);
    const found = await cache.key(hash, () => apiKeys.findOne({ _id: hash }));
    if (!found) throw refuse('invalid_api_key', 'That API key is not valid.');
    const refusal = keyRefusal(found, deps.environment, now());
    if (refusal) throw refuse(refusal, REFUSAL_MESSAGES[refusal](found, deps.environment));

    const workspace = await cache.workspace(found.tenant_id, () => workspaces.findOne({ _id: found.tenant_id }));
    if (!workspace) throw refuse('invalid_api_key', 'That API key is not valid.');
    attempts.succeeded(ctx, key);
    if (workspace.suspended) {
      throw new ApiError('permission_denied', 'This workspace is suspended for billing; keys work again once billing is restored.', {
        reason: 'workspace_suspended',
      });
    }
    uses.seen(found, now());
    ctx.state.apiKey = found;
    ctx.state.workspace = workspace;
    await next();
  };
}
