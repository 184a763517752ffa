import { AuthFailureLimiter, credentialFingerprint } from '../../../src/auth/failureLimiter';

describe('AuthFailureLimiter', () => {
  let now = 0;
  const limiter = () => new AuthFailureLimiter({ limit: 3, windowMs: 60_000 }, () => now);
  const guess = credentialFingerprint('a guess');
  const real = credentialFingerprint('the real key');

  beforeEach(() => (now = 1_000_000));

  it('limits an address after `limit` failures until its window ends, saying how long is left', () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) {
      expect(l.check('a', guess)).toEqual({ limited: false });
      l.failed('a');
    }
    expect(l.check('a', guess)).toEqual({ limited: true, retryAfterSeconds: 60 });
    now += 45_500;
    expect(l.check('a', guess)).toEqual({ limited: true, retryAfterSeconds: 15 });
    now += 14_500;
    expect(l.check('a', guess)).toEqual({ limited: false });
    // A new window starts with the next failure.
    l.failed('a');
    expect(l.check('a', guess)).toEqual({ limited: false });
  });

  it('lets through a credential that worked from the address, for a day; other addresses are never limited', () => {
    const l = limiter();
    l.succeeded('a', real);
    for (let i = 0; i < 3; i++) l.failed('a');
    expect(l.check('a', real)).toEqual({ limited: false });
    expect(l.check('a', guess)).toMatchObject({ limited: true });
    expect(l.check('b', guess)).toEqual({ limited: false });
    now += 24 * 3_600_000;
    for (let i = 0; i < 3; i++) l.failed('a');
    expect(l.check('a', real)).toMatchObject({ limited: true });
  });

  it('gives a limited address one database read every 100 ms, in order, with at most 20 waiting', async () => {
    const l = new AuthFailureLimiter({ limit: 3, windowMs: 60_000 });
    const granted: number[] = [];
    const turns = Array.from({ length: 25 }, (_, i) => l.lookupTurn('a').then((ok) => (ok ? granted.push(i) : undefined, ok)));
    // The first at once, 20 waiting, the last 4 refused at once.
    const answers = await Promise.all(turns);
    expect(answers).toEqual([...Array(21).fill(true), ...Array(4).fill(false)]);
    expect(granted).toEqual(Array.from({ length: 21 }, (_, i) => i));
    // Another address has a line of its own.
    expect(await l.lookupTurn('b')).toBe(true);
  });
});
