import type { Db } from 'mongodb';
import { FEATURE_HOOKS } from '../../../src/main/featureHooks';
import { buildActivityDeps } from '../../../src/worker/activityDeps';

// Each test loads the modules afresh, as a new process would: nothing is installed until its
// composition root calls registerFeatureHooks() (the test setup's own install is in the shared registry).
function fresh<T>(path: string): T {
  let loaded: T | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual<Record<string, unknown>>(path) as T;
  });
  return loaded!;
}

const missing = (what: string) =>
  `The ${what} hooks were never installed: the process's composition root must call registerFeatureHooks() (src/main/featureHooks.ts) before it serves.`;

describe('feature hooks (src/main/featureHooks.ts)', () => {
  it('refuses to start a process that forgot to install them, and starts once installed', () => {
    const roots = fresh<typeof import('../../../src/main/featureHooks')>('../../../src/main/featureHooks');
    expect(() => roots.requireFeatureHooks()).toThrow(missing('message status'));
    roots.registerFeatureHooks();
    expect(() => roots.requireFeatureHooks()).not.toThrow();
    expect(roots.FEATURE_HOOKS.messageStatuses).toHaveLength(1);
  });

  it('makes the API app and the worker refuse to be built without them', async () => {
    const app = fresh<typeof import('../../../api/app')>('../../../api/app');
    expect(() => app.createApp({} as never)).toThrow(missing('message status'));
    const worker = fresh<typeof import('../../../src/worker/createWorker')>('../../../src/worker/createWorker');
    await expect(worker.createWorker({} as never)).rejects.toThrow(missing('message status'));
  });

  it('hands the call hooks to every worker built by the one builder', () => {
    // Nothing is read while the deps are built: a collection handle is all it asks of the database.
    const db = { collection: () => ({}) } as unknown as Db;
    const deps = buildActivityDeps({ db, temporal: {} as never, taskQueue: 'unused' });
    expect(deps.callHooks).toBe(FEATURE_HOOKS.calls);
    expect(FEATURE_HOOKS.calls.ended).toHaveLength(1);
    expect(FEATURE_HOOKS.calls.reread).toHaveLength(1);
  });

  it('makes applying message statuses refuse before any write, instead of leaving campaign recipients behind', async () => {
    const status = fresh<typeof import('../../../src/messaging/deliveryStatus')>('../../../src/messaging/deliveryStatus');
    const db = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the database was touched');
        },
      },
    ) as Db;
    await expect(status.applyStatusesOfMessages({ db, events: { publish: async () => ({}) as never } }, [])).rejects.toThrow(missing('message status'));
  });
});
