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
});
