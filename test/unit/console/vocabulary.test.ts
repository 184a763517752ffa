import { CALL_OUTCOMES, CALL_STATUSES, DISPOSITIONS } from '../../../src/calls/types';
import { choices, duration, say, timesRead } from '../../../api/console/web/src/vocabulary';

describe("the web console's words for codes (issue 35 §7)", () => {
  it('says every call status, outcome and disposition in words, never the code itself', () => {
    for (const [kind, codes] of [
      ['callStatus', CALL_STATUSES],
      ['callOutcome', CALL_OUTCOMES],
      ['disposition', DISPOSITIONS],
    ] as const) {
      for (const code of codes) expect({ code, said: say(kind, code) }).not.toEqual({ code, said: code });
    }
    expect(say('callOutcome', 'agent_hangup')).toBe('Agent ended the call');
    expect(say('resultState', 'ready')).toBe('Read');
    expect(say('disposition', 'completed')).toBe('Completed');
    expect(say('exclusion', 'invalid_destination')).toBe('no usable phone number');
  });

  it('reads a code it does not know as itself with spaces, not as nothing', () => {
    expect(say('callOutcome', 'brand_new_outcome')).toBe('brand new outcome');
  });

  it('offers a filter every status as [code, words]', () => {
    expect(choices('callStatus').map(([code]) => code)).toEqual([...CALL_STATUSES]);
  });

  it('says durations and readings as people do', () => {
    expect(duration(null)).toBeNull();
    expect(duration(45)).toBe('45 s');
    expect(duration(125)).toBe('2 min 05 s');
    expect(duration(3_720)).toBe('1 h 02 min');
    expect([0, 1, 2, 5].map(timesRead)).toEqual(['Not read yet', 'Read once', 'Read twice', 'Read 5 times']);
  });
});
