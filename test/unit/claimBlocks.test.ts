import { claimBlockSize, MAX_CLAIM_BLOCK } from '../../src/rateLimit/counterStore';

describe('the rate limit’s claim blocks', () => {
  const blocks = (ceiling: number) => {
    const out: [number, number][] = [];
    for (let first = 1; first <= ceiling; first += claimBlockSize(first, ceiling)) out.push([first, first + claimBlockSize(first, ceiling) - 1]);
    return out;
  };

  it('partition 1…120 into 14 blocks that double, stay at most 16, and shrink towards the end', () => {
    const list = blocks(120);
    expect(list.map(([a, b]) => b - a + 1)).toEqual([1, 2, 4, 8, 16, 16, 16, 16, 16, 13, 6, 3, 2, 1]);
    expect(list[0]![0]).toBe(1);
    expect(list[list.length - 1]![1]).toBe(120);
    list.slice(1).forEach(([first], i) => expect(first).toBe(list[i]![1] + 1));
    expect(Math.max(...list.map(([a, b]) => b - a + 1))).toBe(MAX_CLAIM_BLOCK);
  });

  it('never reach past the ceiling, whatever it is', () => {
    for (const ceiling of [1, 2, 3, 7, 60, 121, 1000]) {
      const list = blocks(ceiling);
      expect(list[list.length - 1]![1]).toBe(ceiling);
    }
  });
});
