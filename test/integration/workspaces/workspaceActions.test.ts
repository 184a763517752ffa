import type { Db } from 'mongodb';
import { collections } from '../../../src/db/collections';
import { createSender, updateSender } from '../../../src/messaging/senderSetup';
import { createWorkspace, dottedPaths, updateWorkspace, updateWorkspaceSettings } from '../../../src/workspaces/workspaceActions';
import { openTestDb, testConfig, uniqueName } from '../../support/env';

/**
 * The console's workspace and sender set-up use cases (src/workspaces/workspaceActions.ts,
 * src/messaging/senderSetup.ts) without HTTP: a change names only the keys it changes, and a
 * workspace has one default sender.
 */
describe('workspace and sender set-up', () => {
  let store: Awaited<ReturnType<typeof openTestDb>>;
  let db: Db;
  const now = new Date('2026-03-02T10:00:00Z');

  beforeAll(async () => {
    store = await openTestDb(testConfig());
    db = store.db;
  });
  afterAll(async () => {
    await store?.drop();
  });

  it('turns nested objects into dotted paths and keeps lists whole', () => {
    expect(dottedPaths({ name: 'A', plan: { prepaid_credits: 5, chat_channel: false }, calling_country_codes: ['91'] })).toEqual({
      name: 'A',
      'plan.prepaid_credits': 5,
      'plan.chat_channel': false,
      calling_country_codes: ['91'],
    });
  });

  it('changes only the plan keys a change names', async () => {
    const { workspace } = await createWorkspace(db, { name: uniqueName('Shop'), country: 'IN', demo: false }, 'test', now);
    const updated = await updateWorkspace(db, workspace._id, { plan: { prepaid_credits: 7 } }, new Date(now.getTime() + 1000));
    expect(updated!.plan).toEqual({ ...workspace.plan, prepaid_credits: 7 });
    expect(updated!.updated_at).toEqual(new Date(now.getTime() + 1000));
  });

  it('changes only the named keys of a settings group; a list replaces the stored one', async () => {
    const { workspace } = await createWorkspace(db, { name: uniqueName('Shop'), country: 'IN', demo: false }, 'test', now);
    await updateWorkspaceSettings(db, workspace._id, 'ticket_settings', { auto_assign: true, assignees: [{ id: 'a', name: 'A' }] }, now);
    const updated = await updateWorkspaceSettings(db, workspace._id, 'ticket_settings', { assignees: [{ id: 'b', name: 'B' }] }, now);
    expect((updated as unknown as { ticket_settings: unknown }).ticket_settings).toEqual({ auto_assign: true, assignees: [{ id: 'b', name: 'B' }] });
    expect(await updateWorkspaceSettings(db, uniqueName('ws'), 'ticket_settings', { auto_assign: false }, now)).toBeNull();
  });

  it('keeps one default sender: the first, then the one made default', async () => {
    const tenant = uniqueName('ws');
    const first = await createSender(db, tenant, { phone: '+919800000001', display_name: 'One', is_default: false }, now);
    const second = await createSender(db, tenant, { phone: '+919800000002', display_name: 'Two', is_default: false }, now);
    expect([first.is_default, second.is_default]).toEqual([true, false]);
    await updateSender(db, tenant, second._id, { is_default: true });
    const stored = await collections(db).senders.find({ tenant_id: tenant }).sort({ phone: 1 }).toArray();
    expect(stored.map((s) => s.is_default)).toEqual([false, true]);
  });

  it("leaves the defaults alone when the sender is another workspace's", async () => {
    const tenant = uniqueName('ws');
    const mine = await createSender(db, tenant, { phone: '+919800000003', display_name: 'Mine', is_default: false }, now);
    const theirs = await createSender(db, uniqueName('ws'), { phone: '+919800000004', display_name: 'Theirs', is_default: false }, now);
    expect(await updateSender(db, tenant, theirs._id, { is_default: true })).toBeNull();
    expect((await collections(db).senders.findOne({ _id: mine._id }))!.is_default).toBe(true);
  });
});
