import type { Db } from 'mongodb';

// Each test loads the modules afresh, as a new process would: nothing is installed until its
// composition root calls registerFeatureHooks() (the test setup's own install is in the shared registry).
function fresh<T>(path: string): T {
  let loaded: T | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual<T>(path);
  });
  return loaded!;
}

const missing = (what: string) =>
  `The ${what} hooks were never installed: the process's composition root must call registerFeatureHooks() (src/main/featureHooks.ts) before it serves.`;

describe('feature hooks (src/main/featureHooks.ts)', () => {
  it('refuses to start a process that forgot to install them, and starts once installed', () => {
    const roots = fresh<typeof import('../../../src/main/featureHooks')>('../../../src/main/featureHooks');
    expect(() => roots.requireFeatureHooks()).toThrow(missing('call'));
    roots.registerFeatureHooks();
    expect(() => roots.requireFeatureHooks()).not.toThrow();
    // Every campaign reaction is in the one set.
    expect(roots.FEATURE_HOOKS.calls.ended).toHaveLength(1);
    expect(roots.FEATURE_HOOKS.calls.reread).toHaveLength(1);
    expect(roots.FEATURE_HOOKS.messageStatuses).toHaveLength(1);
  });

  it('makes the API app refuse to be built without them', () => {
    const app = fresh<typeof import('../../../api/app')>('../../../api/app');
    expect(() => app.createApp({} as never)).toThrow(missing('call'));
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
