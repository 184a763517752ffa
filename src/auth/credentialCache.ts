import type { ApiKeyDoc, WorkspaceDoc } from '../db/collections';

/**
 * How stale a keyed request's view of its key and workspace may be: a revocation, a
 * suspension or a settings change made by another API process takes effect here within
 * this long. One made in this process (the console, `KeyStore`) takes effect at once.
 */
export const CREDENTIAL_CACHE_MS = 5_000;

/** Bounds memory: past this many entries the oldest are dropped (they are simply read again). */
const MAX_ENTRIES = 20_000;

interface Entry<T> {
  doc: T;
  until: number;
}

/**
 * Recently read API keys (by hash) and workspaces (by id), so a keyed request usually makes
 * no database round trip before its rate-limit count. Only usable answers are kept: a key
 * that is unknown or revoked, or a suspended workspace, is read again on every request, so
 * restoring a workspace works at once and a refused key costs what it did.
 */
export class CredentialCache {
  private readonly keys = new Map<string, Entry<ApiKeyDoc>>();
  private readonly workspaces = new Map<string, Entry<WorkspaceDoc>>();

  constructor(
    readonly ttlMs = CREDENTIAL_CACHE_MS,
    /** Monotonic milliseconds; tests move it. */
    private readonly clock: () => number = () => performance.now(),
  ) {
    live.add(new WeakRef(this));
  }

  async key(hash: string, load: () => Promise<ApiKeyDoc | null>): Promise<ApiKeyDoc | null> {
    const cached = this.fresh(this.keys, hash);
    if (cached) return cached;
    const doc = await load();
    if (doc && !doc.revoked_at) this.keep(this.keys, hash, doc);
    return doc;
  }

  async workspace(id: string, load: () => Promise<WorkspaceDoc | null>): Promise<WorkspaceDoc | null> {
    const cached = this.fresh(this.workspaces, id);
    if (cached) return cached;
    const doc = await load();
    if (doc && !doc.suspended) this.keep(this.workspaces, id, doc);
    return doc;
  }

  /** Drops what this process knows of a workspace and all its keys. */
  forgetTenant(tenantId: string): void {
    this.workspaces.delete(tenantId);
    for (const [hash, entry] of this.keys) if (entry.doc.tenant_id === tenantId) this.keys.delete(hash);
  }

  private fresh<T>(map: Map<string, Entry<T>>, id: string): T | null {
    const entry = map.get(id);
    if (!entry) return null;
    if (entry.until > this.clock()) return entry.doc;
    map.delete(id);
    return null;
  }

  /** From the moment it was read: a hit never extends an entry, or a busy key would never be read again. */
  private keep<T>(map: Map<string, Entry<T>>, id: string, doc: T): void {
    if (this.ttlMs <= 0) return;
    map.delete(id);
    map.set(id, { doc, until: this.clock() + this.ttlMs });
    if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
  }
}

/** Every cache of this process, so a change made here reaches all of them. */
const live = new Set<WeakRef<CredentialCache>>();

/**
 * A workspace's keys or standing changed in this process (revoke, roll, console settings):
 * every cache of the process forgets it, so the change needs no wait here. Other API
 * processes see it within `CREDENTIAL_CACHE_MS`.
 */
export function credentialsChanged(tenantId: string): void {
  for (const ref of live) {
    const cache = ref.deref();
    if (cache) cache.forgetTenant(tenantId);
    else live.delete(ref);
  }
}
