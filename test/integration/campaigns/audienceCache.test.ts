import { createAudienceCache } from '../../../src/campaigns/audienceCache';
import { readContactsStamp } from '../../../src/contacts/contactsStamp';
import { contactCollections, matchOrCreateContact } from '../../../src/contacts/contacts';
import type { WorkspaceDoc } from '../../../src/db/collections';
import type { openTestDb } from '../../support/env';
import { insertCampaignDraft, insertContacts, openDbWithWorkspace } from '../../support/campaigns';

/** A launch reuses the audience its evaluate read, unless the workspace's contacts were written since. */
describe('audience cache', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let workspace: WorkspaceDoc;

  beforeAll(async () => {
    ({ db, workspace } = await openDbWithWorkspace());
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('answers the same rows for the same campaign, version and contacts stamp, without reading the contacts again', async () => {
    const people = await insertContacts(db.db, workspace._id, 600);
    const campaign = await insertCampaignDraft(db.db, workspace._id, { contactIds: people.map((p) => p._id) });
    const cache = createAudienceCache();
    const first = await cache.resolve(db.db, campaign);
    expect(first.rows).toHaveLength(600);
    // Written behind the contacts module's back: the stamp does not move, so the rows are reused.
    await contactCollections(db.db).contacts.deleteOne({ _id: people[0]!._id });
    expect(await cache.resolve(db.db, campaign)).toBe(first);
    // Another version of the campaign is read afresh.
    const fresh = await cache.resolve(db.db, { ...campaign, version: campaign.version + 1 });
    expect(fresh).not.toBe(first);
    expect(fresh.rows).toHaveLength(599);
    expect(fresh.unmatched).toBe(1);
  });

  it('reads afresh once a contact of the workspace was written through the contacts module', async () => {
    const people = [];
    for (let i = 0; i < 3; i++) people.push((await matchOrCreateContact(db.db, workspace, { phone: `+1415555010${i}`, name: `Person ${i}` }, new Date())).contact);
    const campaign = await insertCampaignDraft(db.db, workspace._id, { contactIds: people.map((p) => p._id) });
    const cache = createAudienceCache();
    const before = await readContactsStamp(db.db, workspace._id);
    const first = await cache.resolve(db.db, campaign);
    expect(first.rows.map((r) => r.name)).toEqual(['Person 0', 'Person 1', 'Person 2']);

    // A contact of the audience gains an email (a blank field filled): the stamp moves.
    const match = await matchOrCreateContact(db.db, workspace, { phone: people[1]!.phone, email: 'p1@example.com' }, new Date());
    expect(match.contact._id).toBe(people[1]!._id);
    expect(await readContactsStamp(db.db, workspace._id)).not.toBe(before);
    const again = await cache.resolve(db.db, campaign);
    expect(again).not.toBe(first);
    expect(again.rows[1]).toMatchObject({ contact_id: people[1]!._id, email: 'p1@example.com' });

    // A new contact anywhere in the workspace moves it too.
    const stamp = await readContactsStamp(db.db, workspace._id);
    await matchOrCreateContact(db.db, workspace, { phone: '+14155550199', name: 'New' }, new Date());
    expect(await readContactsStamp(db.db, workspace._id)).not.toBe(stamp);
    expect(await cache.resolve(db.db, campaign)).not.toBe(again);
  });

  it('keeps an audience for its time to live and within its row bound, oldest out first', async () => {
    let now = 0;
    const cache = createAudienceCache({ ttlMs: 1_000, maxRows: 5, now: () => now });
    const people = await insertContacts(db.db, workspace._id, 3);
    const a = await insertCampaignDraft(db.db, workspace._id, { contactIds: people.map((p) => p._id) });
    const b = await insertCampaignDraft(db.db, workspace._id, { contactIds: people.slice(0, 2).map((p) => p._id) });
    const big = await insertCampaignDraft(db.db, workspace._id, { contactIds: [...people, ...people].map((p) => p._id) });

    const first = await cache.resolve(db.db, a);
    now = 999;
    expect(await cache.resolve(db.db, a)).toBe(first);
    now = 1_000;
    const renewed = await cache.resolve(db.db, a);
    expect(renewed).not.toBe(first);

    await cache.resolve(db.db, b);
    expect(cache.size()).toBe(2);
    // Six rows are more than the bound: not kept, and the others stay.
    await cache.resolve(db.db, big);
    expect(cache.size()).toBe(2);
    // A third of 3 rows would make 8: the oldest (a) goes.
    const c = await insertCampaignDraft(db.db, workspace._id, { contactIds: people.map((p) => p._id) });
    await cache.resolve(db.db, c);
    expect(cache.size()).toBe(2);
    expect(await cache.resolve(db.db, a)).not.toBe(renewed);
  });
});
