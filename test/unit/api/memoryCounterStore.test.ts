import { MemoryCounterStore } from '../../../src/rateLimit/counterStore';

describe('MemoryCounterStore', () => {
  it('counts per key and window, and sweeps ended windows', async () => {
    const store = new MemoryCounterStore();
    const expires = new Date('2026-11-21T12:02:00Z');
    expect(await store.increment('key_a', 1, expires)).toBe(1);
    expect(await store.increment('key_a', 1, expires)).toBe(2);
    expect(await store.increment('key_b', 1, expires)).toBe(1);
    expect(await store.increment('key_a', 2, expires)).toBe(1);
    expect(await store.sweep(new Date('2026-11-21T12:01:59Z'))).toBe(0);
    expect(await store.sweep(new Date('2026-11-21T12:02:01Z'))).toBe(3);
    expect(await store.increment('key_a', 1, expires)).toBe(1);
  });
});
