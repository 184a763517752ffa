import { claimBlockSize, CLAIM_BLOCK } from '../../../src/rateLimit/counterStore';

describe('the rate limit’s claim blocks', () => {
  const blocks = (ceiling: number) => {
    const out: [number, number][] = [];
    for (let first = 1; first <= ceiling; first += claimBlockSize(first, ceiling)) out.push([first, first + claimBlockSize(first, ceiling) - 1]);
    return out;
  };

  it('partition 1…120 into 15 blocks of 8', () => {
    const list = blocks(120);
    expect(CLAIM_BLOCK).toBe(8);
    expect(list).toHaveLength(15);
    expect(list.every(([a, b]) => b - a + 1 === 8)).toBe(true);
    expect(list[0]![0]).toBe(1);
    list.slice(1).forEach(([first], i) => expect(first).toBe(list[i]![1] + 1));
  });

  it('never reach past the ceiling, whatever it is', () => {
    for (const ceiling of [1, 2, 3, 7, 60, 121, 1000]) {
      const list = blocks(ceiling);
      expect(list[list.length - 1]![1]).toBe(ceiling);
      list.slice(1).forEach(([first], i) => expect(first).toBe(list[i]![1] + 1));
    }
  });
});
