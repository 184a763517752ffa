import { periodicPass } from '../../../src/async/periodicPass';

/** The one periodic pass behind every sweep (dispatch, retention, late recounts, the dues setups, the simulators, the API's stores). */
describe('periodicPass (src/async/periodicPass.ts)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs now and then every interval, once however often it is started', async () => {
    let runs = 0;
    const pass = periodicPass(async () => void runs++, 1_000, () => undefined);
    pass.start();
    pass.start();
    expect(runs).toBe(1);
    await jest.advanceTimersByTimeAsync(3_000);
    expect(runs).toBe(4);
    await pass.stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(4);
  });

  it('skips a tick while a pass is still running instead of overlapping it', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const pass = periodicPass(
      async () => {
        runs++;
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        running--;
      },
      1_000,
      () => undefined,
    );
    pass.start();
    await jest.advanceTimersByTimeAsync(6_000);
    expect(most).toBe(1);
    // Passes at 0 and 3 s (ticks at 1, 2, 4 and 5 s fell inside one), the next at 6 s.
    expect(runs).toBe(3);
    await jest.advanceTimersByTimeAsync(2_500);
    await pass.stop();
  });

  it('hands a failed pass to onError and tries again at the next tick', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const pass = periodicPass(
      async () => {
        runs++;
        if (runs === 1) throw new Error('database away');
      },
      1_000,
      (err) => errors.push(err),
    );
    pass.start();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(errors.map(String)).toEqual(['Error: database away']);
    expect(runs).toBe(2);
    await pass.stop();
  });

  it('stop waits for the pass under way', async () => {
    let finished = false;
    const pass = periodicPass(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        finished = true;
      },
      1_000,
      () => undefined,
    );
    pass.start();
    const stopped = pass.stop();
    await jest.advanceTimersByTimeAsync(500);
    await stopped;
    expect(finished).toBe(true);
  });
});
