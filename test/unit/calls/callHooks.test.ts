import type { Db } from 'mongodb';
import type { CallDoc } from '../../../src/calls/callStore';

// A module registry of its own, where nothing is installed yet: the test setup installs the
// features' hooks in the shared one (test/support/featureHooks.ts).
let hooks: typeof import('../../../src/calls/callHooks');
jest.isolateModules(() => {
  hooks = jest.requireActual('../../../src/calls/callHooks');
});

describe('call hooks (src/calls/callHooks.ts)', () => {
  const { callEnded, callReread, installCallHooks } = hooks;
  const db = {} as Db;
  const call = { _id: 'call_1', tenant_id: 'ws_1', direction: 'inbound', metadata: {} } as unknown as CallDoc;
  const missing = "The call hooks were never installed: the process's composition root must call registerFeatureHooks() (src/main/featureHooks.ts) before it serves.";

  it('refuses to run hooks nobody installed, instead of ending the call without them', async () => {
    await expect(callEnded({ db }, call)).rejects.toThrow(missing);
    await expect(callReread({ db }, 'call_0', new Date())).rejects.toThrow(missing);
  });

  it('runs each installed call-end hook, and answers the failures instead of throwing', async () => {
    const seen: string[] = [];
    const fine = async (_deps: unknown, c: CallDoc) => seen.push(c._id);
    const broken = async () => {
      throw new Error('run gone');
    };
    installCallHooks({ ended: [fine, broken], reread: [] });
    const failures = await callEnded({ db }, call);
    expect(seen).toEqual(['call_1']);
    expect(failures.map(String)).toEqual(['Error: run gone']);
    // Installing again replaces the set: nothing runs twice.
    installCallHooks({ ended: [fine], reread: [] });
    await callEnded({ db }, call);
    expect(seen).toEqual(['call_1', 'call_1']);
  });

  it('lets a re-read hook failure reach the caller, whose activity retries', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const seen: [string, Date][] = [];
    const record = async (_deps: unknown, callId: string, when: Date) => seen.push([callId, when]);
    installCallHooks({ ended: [], reread: [record] });
    await callReread({ db }, 'call_2', at);
    expect(seen).toEqual([['call_2', at]]);
    installCallHooks({
      ended: [],
      reread: [
        record,
        async () => {
          throw new Error('refold failed');
        },
      ],
    });
    await expect(callReread({ db }, 'call_3', at)).rejects.toThrow('refold failed');
  });
});
