import { entryKey, entryParts, entryRange, entryRecordId, timeKey } from '../../../src/db/keyedEntries';
import { callNumberKey, callsToNumberList } from '../../../src/calls/callEntries';
import { isCurrentRecentKey, recentKey, recentList, recentPosition, transcriptKey } from '../../../src/conversations/conversationEntries';

/** The keys' encoding (src/db/keyedEntries.ts): a list's order is its keys' byte order, and a list's range holds its keys only. */
describe('keyed entry keys', () => {
  const within = (key: string, range: { $gt: string; $lt: string }) => key > range.$gt && key < range.$lt;

  it('joins parts with | and gives back the record id and the parts', () => {
    const key = callNumberKey({ _id: 'call_0190aa00000011223344556677', tenant_id: 'ws_1', to: '+919811122255' });
    expect(key).toBe('ws_1|to:+919811122255|call_0190aa00000011223344556677');
    expect(entryRecordId(key)).toBe('call_0190aa00000011223344556677');
    expect(entryParts(key)).toEqual(['ws_1', 'to:+919811122255', 'call_0190aa00000011223344556677']);
  });

  it("a number's range holds its own calls only, not a longer number's that starts with it, nor another workspace's", () => {
    const range = entryRange(callsToNumberList('ws_1', '+9198111'));
    expect(within(callNumberKey({ _id: 'call_a', tenant_id: 'ws_1', to: '+9198111' }), range)).toBe(true);
    expect(within(callNumberKey({ _id: 'call_a', tenant_id: 'ws_1', to: '+91981112' }), range)).toBe(false);
    expect(within(callNumberKey({ _id: 'call_a', tenant_id: 'ws_10', to: '+9198111' }), range)).toBe(false);
    expect(within(callNumberKey({ _id: 'call_a', tenant_id: 'ws_1', to: '+919811' }), range)).toBe(false);
  });

  it('orders recent keys by updated_at then conversation id, as the list is ordered', () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
    const keys = [
      recentKey({ _id: 'con_b', tenant_id: 'ws_1', updated_at: at(1) }),
      recentKey({ _id: 'con_a', tenant_id: 'ws_1', updated_at: at(1) }),
      recentKey({ _id: 'con_z', tenant_id: 'ws_1', updated_at: at(0) }),
      recentKey({ _id: 'con_c', tenant_id: 'ws_1', updated_at: at(1000) }),
    ];
    expect([...keys].sort().reverse().map(entryRecordId)).toEqual(['con_c', 'con_b', 'con_a', 'con_z']);
    // 12 hex digits of milliseconds: a later time sorts later across a digit boundary too.
    expect(timeKey(new Date(0xfffffffff))).toBe('000fffffffff');
    expect(timeKey(new Date(0xfffffffff)) < timeKey(new Date(0x1000000000))).toBe(true);
    expect(keys.every((k) => within(k, entryRange(recentList('ws_1'))))).toBe(true);
    expect(recentKey({ _id: 'con_b', tenant_id: 'ws_1', updated_at: at(1) })).toBe(`${recentList('ws_1')}|${recentPosition(at(1), 'con_b')}`);
    expect(isCurrentRecentKey(keys[0]!, { updated_at: at(1) })).toBe(true);
    expect(isCurrentRecentKey(keys[0]!, { updated_at: at(2) })).toBe(false);
  });

  it("orders a transcript's keys by message id within its conversation's range", () => {
    const key = transcriptKey({ _id: 'msg_0190aa000000aabbccddeeff', conversation_id: 'con_1' });
    expect(key).toBe('con_1|msg_0190aa000000aabbccddeeff');
    expect(within(key, entryRange('con_1'))).toBe(true);
    expect(within(key, entryRange('con_12'))).toBe(false);
  });

  it('refuses a part that is empty, holds the separator or a character JSON escapes', () => {
    for (const part of ['', 'a|b', 'a"b', 'a\\b', 'a<b', 'a>b', 'a&b', 'a\nb']) expect(() => entryKey('ws_1', part)).toThrow(/reserved character/);
  });
});
