import { deliveryEntryId, deliveryStatusEntryId, endpointEntryRange, statusEntryRange } from '../../../src/webhooks/deliveryEntries';

/** The list entries' keys (src/webhooks/deliveryEntries.ts): byte order is the list's order, one endpoint's range holds only its own. */
describe('delivery entry keys', () => {
  const at = (ms: number) => new Date(ms);

  it('spells tenant, endpoint, created_at as 12 hex digits, then the delivery id', () => {
    expect(deliveryEntryId('ws_a', 'whk_1', at(Date.parse('2026-11-01T00:00:00.000Z')), 'evt_1:whk_1')).toBe(`ws_a|whk_1|${Date.parse('2026-11-01T00:00:00.000Z').toString(16).padStart(12, '0')}|evt_1:whk_1`);
    expect(deliveryEntryId('ws_a', 'whk_1', at(0), 'd')).toBe('ws_a|whk_1|000000000000|d');
  });

  it('sorts as the list does: created_at, then the delivery id, whatever the ids’ lengths', () => {
    const keys = [
      deliveryEntryId('ws_a', 'whk_1', at(1_700_000_000_001), 'evt_a:whk_1'),
      deliveryEntryId('ws_a', 'whk_1', at(999), 'evt_z:whk_1:rpl_9'),
      deliveryEntryId('ws_a', 'whk_1', at(1_700_000_000_000), 'evt_b:whk_1'),
      deliveryEntryId('ws_a', 'whk_1', at(1_700_000_000_000), 'evt_b:whk_1:rpl_1'),
      deliveryEntryId('ws_a', 'whk_1', at(1_700_000_000_000), 'evt_a:whk_1'),
    ];
    expect([...keys].sort()).toEqual([keys[1], keys[4], keys[2], keys[3], keys[0]]);
  });

  it("one endpoint's range holds its entries and no other endpoint's or workspace's", () => {
    const range = endpointEntryRange('ws_a', 'whk_1');
    const inside = (key: string) => key > range.$gt && key < range.$lt;
    expect(inside(deliveryEntryId('ws_a', 'whk_1', at(0), 'x'))).toBe(true);
    expect(inside(deliveryEntryId('ws_a', 'whk_1', at(8_000_000_000_000_000), 'zzz'))).toBe(true);
    expect(inside(deliveryEntryId('ws_a', 'whk_10', at(5), 'x'))).toBe(false);
    expect(inside(deliveryEntryId('ws_a', 'whk_', at(5), 'x'))).toBe(false);
    expect(inside(deliveryEntryId('ws_ab', 'whk_1', at(5), 'x'))).toBe(false);
    expect(inside('ws_a|whk_1')).toBe(false);
  });

  it("a status entry's key: that status's range holds it, no other status's, and it sorts by time then id", () => {
    const key = deliveryStatusEntryId('ws_a', 'whk_1', 'failed', at(1_700_000_000_000), 'evt_b:whk_1');
    expect(key).toBe(`ws_a|whk_1|failed|${(1_700_000_000_000).toString(16).padStart(12, '0')}|evt_b:whk_1`);
    const failed = statusEntryRange('ws_a', 'whk_1', 'failed');
    const inside = (range: { $gt: string; $lt: string }, k: string) => k > range.$gt && k < range.$lt;
    expect(inside(failed, key)).toBe(true);
    expect(inside(statusEntryRange('ws_a', 'whk_1', 'pending'), key)).toBe(false);
    expect(inside(statusEntryRange('ws_a', 'whk_10', 'failed'), key)).toBe(false);
    const later = deliveryStatusEntryId('ws_a', 'whk_1', 'failed', at(1_700_000_000_001), 'evt_a:whk_1');
    const tie = deliveryStatusEntryId('ws_a', 'whk_1', 'failed', at(1_700_000_000_000), 'evt_c:whk_1');
    expect([later, tie, key].sort()).toEqual([key, tie, later]);
  });
});
