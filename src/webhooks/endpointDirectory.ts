import type { Db } from 'mongodb';
import { endpointReceives } from '../events/types';
import { webhookEndpoints } from './endpoints';

/**
 * Which of a workspace's endpoints receive an event type, for the publisher: read once per
 * workspace and kept ENDPOINT_CACHE_MS, so a busy workspace costs one read of the endpoints
 * per few seconds instead of one per event, and a workspace with no endpoint (the common
 * case) costs no Temporal call at all. Endpoint changes through the console clear the
 * workspace's entry in this process at once (`forgetEndpoints`); other processes see them
 * within ENDPOINT_CACHE_MS: an entry is stamped when its read starts, so a lookup sees every
 * change committed more than ENDPOINT_CACHE_MS before it. A stale entry can only delay an
 * endpoint's first events (one created, enabled or subscribed less than ENDPOINT_CACHE_MS
 * ago may miss events published in that window; the publisher asks before storing an event,
 * and stores one nobody receives as dispatched): one deleted, disabled or unsubscribed is
 * re-checked by the drain before each delivery (src/webhooks/drain.ts), so it never
 * receives an event it no longer takes.
 */
export const ENDPOINT_CACHE_MS = 5_000;

const MAX_CACHED_WORKSPACES = 10_000;

interface Entry {
  at: number;
  endpoints: Promise<{ _id: string; event_types: string[] }[]>;
}

export interface EndpointDirectory {
  /** Ids of the workspace's enabled endpoints that receive `type`, oldest first. */
  receivers(tenantId: string, type: string): Promise<string[]>;
  forget(tenantId: string): void;
}

const directories = new Set<Map<string, Entry>>();

/** Drops the workspace's cached endpoints in every directory of this process (after a console change). */
export function forgetEndpoints(tenantId: string): void {
  for (const cache of directories) cache.delete(tenantId);
}

export function createEndpointDirectory(db: Db, options: { ttlMs?: number; clock?: () => number } = {}): EndpointDirectory {
  const ttlMs = options.ttlMs ?? ENDPOINT_CACHE_MS;
  const clock = options.clock ?? Date.now;
  const cache = new Map<string, Entry>();
  directories.add(cache);

  function load(tenantId: string): Entry['endpoints'] {
    const hit = cache.get(tenantId);
    if (hit && clock() - hit.at < ttlMs) return hit.endpoints;
    if (cache.size >= MAX_CACHED_WORKSPACES) cache.clear(); // bounded memory; the next reads refill it
    const entry: Entry = {
      at: clock(),
      // A workspace has at most 20 endpoints; the filter scans the endpoints collection on
      // FerretDB, which is why the answer is kept.
      endpoints: webhookEndpoints(db)
        .find({ tenant_id: tenantId, enabled: true }, { projection: { _id: 1, event_types: 1 } })
        .sort({ created_at: 1, _id: 1 })
        .toArray(),
    };
    cache.set(tenantId, entry);
    entry.endpoints.catch(() => cache.get(tenantId) === entry && cache.delete(tenantId));
    return entry.endpoints;
  }

  return {
    async receivers(tenantId, type) {
      return (await load(tenantId)).filter((e) => endpointReceives(e.event_types, type)).map((e) => e._id);
    },
    forget(tenantId) {
      cache.delete(tenantId);
    },
  };
}
