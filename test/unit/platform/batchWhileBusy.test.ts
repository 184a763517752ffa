import { batchWhileBusy } from '../../../src/async/batchWhileBusy';

describe('batchWhileBusy (src/async/batchWhileBusy.ts)', () => {
  it('sends an idle key’s first item at once, then what came meanwhile together, at most `max` a send, in order', async () => {
    const sends: [string, number[]][] = [];
    let release: () => void = () => undefined;
    const batches = batchWhileBusy<string, number>(3, async (key, items) => {
      sends.push([key, items]);
      if (sends.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const all = [1, 2, 3, 4, 5, 6].map((n) => batches.add('a', n));
    const other = batches.add('b', 7);
    expect(sends).toEqual([
      ['a', [1]],
      ['b', [7]],
    ]);
    release();
    await Promise.all([...all, other]);
    expect(sends).toEqual([
      ['a', [1]],
      ['b', [7]],
      ['a', [2, 3, 4]],
      ['a', [5, 6]],
    ]);
  });

  it('settles each item with its own send: a failed send rejects its items, the next send still goes', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const batches = batchWhileBusy<string, number>(10, async () => {
      calls += 1;
      if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
      if (calls === 2) throw new Error('refused');
    });
    const first = batches.add('k', 1);
    const second = [batches.add('k', 2), batches.add('k', 3)].map((p) => p.then(() => 'ok', (err: Error) => err.message));
    release();
    await first;
    expect(await Promise.all(second)).toEqual(['refused', 'refused']);
    await batches.add('k', 4);
    expect(calls).toBe(3);
  });
});
