import type { Db } from 'mongodb';
import { callEnded, callReread, type CallHooks } from '../../../src/calls/callHooks';
import type { CallDoc } from '../../../src/calls/callStore';

// The hooks are a dependency: each call runs exactly the set it is given (the worker's is
// src/main/featureHooks.ts FEATURE_HOOKS, through src/worker/activityDeps.ts).
describe('call hooks (src/calls/callHooks.ts)', () => {
  const db = {} as Db;
  const call = { _id: 'call_1', tenant_id: 'ws_1', direction: 'inbound', metadata: {} } as unknown as CallDoc;

  it('runs each given call-end hook, and answers the failures instead of throwing', async () => {
    const seen: string[] = [];
    const fine = async (_deps: unknown, c: CallDoc) => seen.push(c._id);
    const broken = async () => {
      throw new Error('run gone');
    };
    const failures = await callEnded({ ended: [fine, broken], reread: [] }, { db }, call);
    expect(seen).toEqual(['call_1']);
    expect(failures.map(String)).toEqual(['Error: run gone']);
  });

  it('lets a re-read hook failure reach the caller, whose activity retries', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const seen: [string, Date][] = [];
    const record = async (_deps: unknown, callId: string, when: Date) => seen.push([callId, when]);
    const hooks: CallHooks = { ended: [], reread: [record] };
    await callReread(hooks, { db }, 'call_2', at);
    expect(seen).toEqual([['call_2', at]]);
    const failing: CallHooks = {
      ended: [],
      reread: [
        record,
        async () => {
          throw new Error('refold failed');
        },
      ],
    };
    await expect(callReread(failing, { db }, 'call_3', at)).rejects.toThrow('refold failed');
    expect(seen.map(([id]) => id)).toEqual(['call_2', 'call_3']);
  });
});
