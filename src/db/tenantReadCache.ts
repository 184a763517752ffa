/**
 * How stale a cached list answer may be: a change written by another API process (or straight
 * to the database) shows in the answer within this long. One made through this process (the
 * console) shows at once, by `tenantReadModelChanged`. FerretDB on SQLite answers a
 * `tenant_id` filter by scanning the collection (docs/decisions/README.md), so a list read per
 * request costs milliseconds of database CPU; a short bound turns it into one read per
 * workspace and page per bound.
 */
export const TENANT_READ_CACHE_MS = 2_000;

/**
 * Past this share of its bound, a cache hit also reads the answer again in the background, so
 * a busy entry is never waited on and entries read together do not expire together. Later
 * rather than earlier: each refresh is a read that a plain expiry would not have made.
 */
export const REFRESH_AFTER = 0.75;

/** Bounds memory: past this many entries the oldest are dropped (they are simply read again). */
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  tenantId: string;
  value: Promise<T>;
  /** When the read began: the answer is never older than the bound. */
  readAt: number;
  /** A read ahead of expiry is under way. */
  refreshing: boolean;
}

/**
 * Recent answers of a workspace's list reads, keyed by workspace and a key naming the read
 * (the page asked for). Concurrent requests for an answer not yet cached share one read; a
 * read that fails is not kept, so the next request reads again (and an outage answers 503 as
 * without the cache). Past REFRESH_AFTER of the bound a hit also starts one read in the background that
 * replaces the answer, so a busy page is never waited on.
 */
export class TenantReadCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    readonly ttlMs = TENANT_READ_CACHE_MS,
    /** Monotonic milliseconds; tests move it. */
    private readonly clock: () => number = () => performance.now(),
  ) {
    live.add(new WeakRef(this as TenantReadCache<unknown>));
  }

  read(tenantId: string, key: string, load: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return load();
    const id = `${tenantId}\u0000${key}`;
    const now = this.clock();
    const cached = this.entries.get(id);
    if (cached && cached.readAt + this.ttlMs > now) {
      if (!cached.refreshing && now - cached.readAt >= this.ttlMs * REFRESH_AFTER) {
        cached.refreshing = true;
        this.start(id, tenantId, load, now, cached).then(
          () => undefined,
          () => (cached.refreshing = false),
        );
      }
      return cached.value;
    }
    return this.start(id, tenantId, load, now);
  }

  /** Reads and keeps the answer; a refresh replaces its entry only if that was not forgotten meanwhile. */
  private start(id: string, tenantId: string, load: () => Promise<T>, now: number, previous?: Entry<T>): Promise<T> {
    const value = load();
    const entry: Entry<T> = { tenantId, value, readAt: now, refreshing: false };
    if (previous) {
      // The old answer keeps serving until the new one is in.
      value.then(
        () => {
          if (this.entries.get(id) === previous) this.put(id, entry);
        },
        () => undefined,
      );
      return value;
    }
    this.put(id, entry);
    value.catch(() => {
      if (this.entries.get(id) === entry) this.entries.delete(id);
    });
    return value;
  }

  private put(id: string, entry: Entry<T>): void {
    this.entries.delete(id);
    this.entries.set(id, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Drops every answer of a workspace, a read still under way included. */
  forgetTenant(tenantId: string): void {
    for (const [id, entry] of this.entries) if (entry.tenantId === tenantId) this.entries.delete(id);
  }
}

/** Every cache of this process, so a change made here reaches all of them. */
const live = new Set<WeakRef<TenantReadCache<unknown>>>();

/**
 * A workspace's agents or numbers changed in this process (the console): every cache of the
 * process forgets the workspace, so the change shows at once here. Other API processes show
 * it within `TENANT_READ_CACHE_MS`.
 */
export function tenantReadModelChanged(tenantId: string): void {
  for (const ref of live) {
    const cache = ref.deref();
    if (cache) cache.forgetTenant(tenantId);
    else live.delete(ref);
  }
}
