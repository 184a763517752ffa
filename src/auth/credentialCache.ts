import type { ApiKeyDoc, WorkspaceDoc } from '../db/collections';
import { REFRESH_AFTER } from '../db/tenantReadCache';

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
  /** When the read that produced `doc` began. */
  readAt: number;
  until: number;
  /** A read ahead of expiry is under way. */
  refreshing: boolean;
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

  key(hash: string, load: () => Promise<ApiKeyDoc | null>): Promise<ApiKeyDoc | null> {
    return this.read(this.keys, hash, load, usableKey);
  }

  /** Whether a usable key is held within its bound: checking it reads nothing. */
  holdsKey(hash: string): boolean {
    const entry = this.keys.get(hash);
    return entry !== undefined && entry.until > this.clock();
  }

  workspace(id: string, load: () => Promise<WorkspaceDoc | null>): Promise<WorkspaceDoc | null> {
    return this.read(this.workspaces, id, load, usableWorkspace);
  }

  /** Drops what this process knows of a workspace and all its keys. */
  forgetTenant(tenantId: string): void {
    this.workspaces.delete(tenantId);
    for (const [hash, entry] of this.keys) if (entry.doc.tenant_id === tenantId) this.keys.delete(hash);
  }

  /** The cached document, or what `load` reads (kept when usable). */
  private async read<T>(map: Map<string, Entry<T>>, id: string, load: () => Promise<T | null>, usable: (doc: T) => boolean): Promise<T | null> {
    const cached = this.fresh(map, id, load, usable);
    if (cached) return cached;
    const readAt = this.clock();
    const doc = await load();
    if (doc && usable(doc)) this.keep(map, id, doc, readAt);
    return doc;
  }

  /**
   * The cached document while it is within the bound. Past REFRESH_AFTER of the bound a hit also starts
   * one read in the background that replaces it (or drops it, if no longer usable): a busy
   * key is then never waited on, and entries read together do not all expire, and stall
   * their requests, at the same moment.
   */
  private fresh<T>(map: Map<string, Entry<T>>, id: string, load: () => Promise<T | null>, usable: (doc: T) => boolean): T | null {
    const entry = map.get(id);
    if (!entry) return null;
    const now = this.clock();
    if (entry.until <= now) {
      map.delete(id);
      return null;
    }
    if (!entry.refreshing && now - entry.readAt >= this.ttlMs * REFRESH_AFTER) {
      entry.refreshing = true;
      load().then(
        (doc) => {
          // Forgotten meanwhile (a change made in this process): the read may predate it.
          if (map.get(id) !== entry) return;
          if (doc && usable(doc)) this.keep(map, id, doc, now);
          else map.delete(id);
        },
        () => (entry.refreshing = false),
      );
    }
    return entry.doc;
  }

  /** Bounded from the moment its read began: a hit never extends an entry, only a new read does. */
  private keep<T>(map: Map<string, Entry<T>>, id: string, doc: T, readAt: number): void {
    if (this.ttlMs <= 0) return;
    map.delete(id);
    map.set(id, { doc, readAt, until: readAt + this.ttlMs, refreshing: false });
    if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
  }
}

const usableKey = (doc: ApiKeyDoc) => !doc.revoked_at;
const usableWorkspace = (doc: WorkspaceDoc) => !doc.suspended;

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
