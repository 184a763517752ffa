/**
 * How stale a cached list answer may be: a change written by another API process (or straight
 * to the database) shows in the answer within this long. One made through this process (the
 * console) shows at once, by `tenantReadModelChanged`. FerretDB on SQLite answers a
 * `tenant_id` filter by scanning the collection (docs/decisions.md), so a list read per
 * request costs milliseconds of database CPU; a short bound turns it into one read per
 * workspace and page per bound.
 */
export const TENANT_READ_CACHE_MS = 2_000;

/** Bounds memory: past this many entries the oldest are dropped (they are simply read again). */
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  tenantId: string;
  value: Promise<T>;
  /** Counted from when the read began, so the answer is never older than the bound. */
  until: number;
}

/**
 * Recent answers of a workspace's list reads, keyed by workspace and a key naming the read
 * (the page asked for). Concurrent requests for an answer not yet cached share one read; a
 * read that fails is not kept, so the next request reads again (and an outage answers 503 as
 * without the cache).
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
    const id = `${tenantId}\u0000${key}`;
    const now = this.clock();
    const cached = this.entries.get(id);
    if (cached && cached.until > now) return cached.value;
    if (this.ttlMs <= 0) return load();
    const value = load();
    const entry: Entry<T> = { tenantId, value, until: now + this.ttlMs };
    this.entries.delete(id);
    this.entries.set(id, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    value.catch(() => {
      if (this.entries.get(id) === entry) this.entries.delete(id);
    });
    return value;
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
