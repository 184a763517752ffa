import type { Db } from 'mongodb';
import type { CallDoc } from '../../../src/calls/callStore';

// A registry of its own, without the campaign hooks the test setup registers
// (test/support/featureHooks.ts).
let hooks: typeof import('../../../src/calls/callHooks');
jest.isolateModules(() => {
  hooks = jest.requireActual('../../../src/calls/callHooks');
});

describe('call hooks (src/calls/callHooks.ts)', () => {
  const { callEnded, callReread, onCallEnded, onCallReread } = hooks;
  const db = {} as Db;
  const call = { _id: 'call_1', tenant_id: 'ws_1', direction: 'inbound', metadata: {} } as unknown as CallDoc;

  it('runs each call-end hook once however often it was registered, and answers the failures instead of throwing', async () => {
    const seen: string[] = [];
    const fine = async (_deps: unknown, c: CallDoc) => seen.push(c._id);
    const broken = async () => {
      throw new Error('run gone');
    };
    onCallEnded(fine);
    onCallEnded(fine);
    onCallEnded(broken);
    const failures = await callEnded({ db }, call);
    expect(seen).toEqual(['call_1']);
    expect(failures.map(String)).toEqual(['Error: run gone']);
  });

  it('lets a re-read hook failure reach the caller, whose activity retries', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const seen: [string, Date][] = [];
    onCallReread(async (_deps, callId, when) => seen.push([callId, when]));
    await callReread({ db }, 'call_2', at);
    expect(seen).toEqual([['call_2', at]]);
    onCallReread(async () => {
      throw new Error('refold failed');
    });
    await expect(callReread({ db }, 'call_3', at)).rejects.toThrow('refold failed');
  });
});
