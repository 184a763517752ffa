import type { AudienceCache } from '../../src/campaigns/audienceCache';
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import type { Config } from '../../src/config';
import type { Logger } from '../../src/observability/logger';
import type { IdempotencyStore } from '../../src/idempotency/store';
import type { CounterStore } from '../../src/rateLimit/counterStore';
import type { CredentialCache } from '../../src/auth/credentialCache';
import type { AuthFailureLimiter } from '../../src/auth/failureLimiter';
import type { TenantReadCache } from '../../src/db/tenantReadCache';
import type { EventPublisher } from '../../src/events/publisher';
import type { CursorCodec } from '../pagination';

/** What the public routers are built with. */
export interface PublicDeps {
  config: Config;
  db: Db;
  temporal: Client;
  logger: Logger;
  cursors: CursorCodec;
  rateLimitStore: CounterStore;
  /** Idempotency-Key claims; default: the store on `db`. */
  idempotencyStore?: IdempotencyStore;
  /** Recently read keys and workspaces (bounded staleness: src/auth/credentialCache.ts). */
  credentialCache?: CredentialCache;
  /** Failed authentication attempts per address (src/auth/failureLimiter.ts); none: unlimited. */
  authFailures?: AuthFailureLimiter;
  /** Recent list answers (bounded staleness: src/db/tenantReadCache.ts); default: one with the production bound. */
  listCache?: TenantReadCache<unknown>;
  /** Stores and dispatches events for webhook delivery. */
  events: EventPublisher;
  /** Audiences resolved by evaluate, reused by launch (src/campaigns/audienceCache.ts); default: none kept. */
  audiences?: AudienceCache;
  now?: () => Date;
}
