import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { readSegment, scanSegment, type AudienceContact } from '../../../src/campaigns/audience';
import type { CampaignDoc } from '../../../src/campaigns/campaign';
import { evaluateCampaign, evaluate, lookupTemplate } from '../../../src/campaigns/evaluate';
import { contactCollections, matchOrCreateContact, type ContactDoc } from '../../../src/contacts/contacts';
import {
  backfillContactTagEntries,
  contactTagEntries,
  contactTagEntriesCollection,
  markContactWrite,
  readSegmentEntries,
} from '../../../src/contacts/tagEntries';
import type { WorkspaceDoc } from '../../../src/db/collections';
import { entriesComplete } from '../../../src/db/keyedEntries';
import { recordOptOut, suppressedNumbers } from '../../../src/messaging/optOut';
import type { openTestDb } from '../../support/env';
import { broadcastRequest, insertDrafted } from '../../support/campaignDrafts';
import { openDbWithWorkspace } from '../../support/campaigns';

/**
 * A segment is read through the contacts' tag entries (src/contacts/tagEntries.ts) once they are
 * complete: one `_id` range instead of a scan of the workspace's contacts. The entries must say
 * what the contacts say, after every write, a parallel one and a writer that died midway.
 */
describe('segment audiences through the contacts’ tag entries', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let workspace: WorkspaceDoc;
  const tag = `seg-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    ({ db, workspace } = await openDbWithWorkspace());
  });
  afterAll(async () => {
    await db?.drop();
  });

  const contact = async (input: { phone?: string; email?: string; name?: string; tags?: string[] }) =>
    (await matchOrCreateContact(db.db, workspace, input, new Date())).contact;
  const read = (id: string) => contactCollections(db.db).contacts.findOne({ _id: id }) as Promise<ContactDoc>;
  const entriesOf = async (c: ContactDoc) => contactTagEntriesCollection(db.db).find({ _id: { $in: c.tags.map((t) => `${c.tenant_id}|tag:${encodeURIComponent(t)}|${c._id}`) } }).sort({ _id: 1 }).toArray();
  const marksLeft = (d: Db) => d.collection('contact_write_marks').countDocuments({});

  async function segmentDraft(tags: string[]): Promise<CampaignDoc> {
    return insertDrafted(db.db, broadcastRequest({ name: 'Segment', audience: { kind: 'segment', contact_ids: [], tags } }), {
      workspace,
      createdBy: { kind: 'api_key', id: 'key_test' },
      now: new Date(),
    });
  }

  /** What evaluate answers when the segment is read by the old scan of the workspace's contacts. */
  async function evaluateByScan(campaign: CampaignDoc) {
    const rows: AudienceContact[] = await scanSegment(db.db, workspace._id, campaign.audience.tags);
    return evaluate({
      campaign,
      workspace,
      audience: { rows, unmatched: 0 },
      suppressed: await suppressedNumbers(db.db, workspace._id),
      template: await lookupTemplate(db.db, campaign),
      senderProblem: null,
    }).result;
  }

  it('keeps each tag’s entry in step with its contact as it is created, filled in and tagged, leaving no write mark', async () => {
    const created = await contact({ phone: '+14155550301', name: 'Asha', tags: [tag] });
    expect(await entriesOf(created)).toEqual(contactTagEntries(created).sort((a, b) => (a._id < b._id ? -1 : 1)));
    expect(JSON.parse((await entriesOf(created))[0]!.c)).toEqual(['Asha', null, '+14155550301', [tag]]);

    await contact({ phone: '+14155550301', email: 'asha@example.com', tags: ['vip'] });
    const after = await read(created._id);
    expect(after.tags).toEqual([tag, 'vip']);
    const entries = await entriesOf(after);
    expect(entries.map((e) => JSON.parse(e.c))).toEqual([
      ['Asha', 'asha@example.com', '+14155550301', [tag, 'vip']],
      ['Asha', 'asha@example.com', '+14155550301', [tag, 'vip']],
    ]);
    expect(await marksLeft(db.db)).toBe(0);
  });

  it('answers null until the entries are backfilled, then the backfill writes those of contacts written behind the module', async () => {
    // Written straight into the store (as before the entries existed): a number that is not one, and a second contact on
    // Asha's number whose id sorts after hers (a segment is in contact id order, so the twin is the duplicate).
    const at = new Date();
    const direct = (id: string, phone: string, name: string): ContactDoc => ({ _id: id, tenant_id: workspace._id, name, email: null, phone, external_id: null, tags: [tag], created_at: at, updated_at: at });
    await contactCollections(db.db).contacts.insertMany([direct(`cnt_${randomBytes(12).toString('hex')}`, '12345', 'Bad Number'), direct(`cnt_ffffff${randomBytes(9).toString('hex')}`, '+14155550301', 'Asha Twin')]);
    expect(await entriesComplete(db.db, 'contact_tag_entries')).toBe(false);
    expect(await readSegmentEntries(db.db, workspace._id, [tag])).toBeNull();

    await backfillContactTagEntries(db.db);
    expect(await entriesComplete(db.db, 'contact_tag_entries')).toBe(true);
    const fromEntries = await readSegmentEntries(db.db, workspace._id, [tag]);
    expect(fromEntries).toEqual(await scanSegment(db.db, workspace._id, [tag]));
    expect(fromEntries).toHaveLength(3);
  });

  it('evaluates a segment through the entries exactly as the scan does: opt-outs, duplicates, invalid numbers, a missing number, several tags', async () => {
    await contact({ email: 'nophone@example.com', name: 'No Phone', tags: [tag] });
    await contact({ phone: '+14155550302', name: 'Opted Out', tags: [tag, 'vip'] });
    await contact({ phone: '+14155550303', name: 'Elsewhere', tags: ['vip'] });
    await recordOptOut(db.db, { tenantId: workspace._id, phone: '+14155550302', sourceMessageId: 'msg_test', at: new Date() });

    const campaign = await segmentDraft([tag]);
    const evaluation = await evaluateCampaign(db.db, campaign, workspace);
    expect(evaluation.result).toEqual(await evaluateByScan(campaign));
    expect(evaluation.result).toMatchObject({ eligible: 1, total_rows: 5, excluded: { invalid_destination: 2, duplicate_recipient: 1, suppressed: 1 } });
    expect(evaluation.recipients.map((r) => r.name)).toEqual(['Asha']);

    const both = await segmentDraft([tag, 'vip']);
    const twoTags = await evaluateCampaign(db.db, both, workspace);
    expect(twoTags.result).toEqual(await evaluateByScan(both));
    expect(twoTags.result).toMatchObject({ eligible: 1, total_rows: 2, excluded: { suppressed: 1 } });
  });

  it('follows a contact written after the evaluate before: a number given, a tag added', async () => {
    await contact({ email: 'nophone@example.com', phone: '+14155550304' });
    await contact({ phone: '+14155550303', tags: [tag] });
    const campaign = await segmentDraft([tag]);
    const evaluation = await evaluateCampaign(db.db, campaign, workspace);
    expect(evaluation.result).toEqual(await evaluateByScan(campaign));
    expect(evaluation.recipients.map((r) => r.name).sort((a, b) => String(a).localeCompare(String(b)))).toEqual(['Asha', 'Elsewhere', 'No Phone']);
  });

  it('keys any tag: the characters a key reserves, and lone surrogates read as BSON stores them (U+FFFD)', async () => {
    const odd = `${tag}|"<&>\ud800`;
    const holder = await contact({ phone: '+14155550307', name: 'Odd Tag', tags: [odd] });
    const near = await contact({ phone: '+14155550308', name: 'Near Tag', tags: [`${tag}|"<&>\ud801`] });
    await contact({ phone: '+14155550309', name: 'Other Tag', tags: [`${tag}|"<&>`] });
    const read = await readSegmentEntries(db.db, workspace._id, [odd]);
    expect(read?.map((r) => r.contact_id).sort((a, b) => String(a).localeCompare(String(b)))).toEqual([holder._id, near._id].sort((a, b) => String(a).localeCompare(String(b))));
    expect(read).toEqual(await scanSegment(db.db, workspace._id, [odd]));
  });

  it('reads a contact whose writer died before its entries from the contact itself', async () => {
    const someone = await contact({ phone: '+14155550305', name: 'Interrupted' });
    // The write's mark, then the write, and no sync: what a process killed between them leaves.
    await markContactWrite(db.db, workspace._id, someone._id, new Date());
    await contactCollections(db.db).contacts.updateOne({ _id: someone._id }, { $addToSet: { tags: tag } });
    expect(await entriesOf(await read(someone._id))).toEqual([]);
    const rows = await readSegment(db.db, workspace._id, [tag]);
    expect(rows.map((r) => r.name)).toContain('Interrupted');
    expect(rows).toEqual(await scanSegment(db.db, workspace._id, [tag]));
  });

  it('ends with every entry saying what the contact says after parallel writes to it', async () => {
    const first = await contact({ phone: '+14155550306', tags: [tag] });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => contact({ phone: '+14155550306', ...(i === 3 ? { email: 'parallel@example.com' } : {}), ...(i === 5 ? { name: 'Parallel' } : {}), tags: [`p${i}`] })),
    );
    const final = await read(first._id);
    expect(await entriesOf(final)).toEqual(contactTagEntries(final).sort((a, b) => (a._id < b._id ? -1 : 1)));
    expect(final.tags.length).toBeGreaterThan(1);
    expect(await readSegment(db.db, workspace._id, ['p0'])).toEqual(await scanSegment(db.db, workspace._id, ['p0']));
  });

  it('drops a contact’s abandoned write marks (older than 10 minutes) once its entries are found in step, and keeps younger ones', async () => {
    const someone = await contact({ phone: '+14155550310', tags: [tag] });
    const marks = db.db.collection<{ _id: string; at: Date }>('contact_write_marks');
    const mine = { _id: `${workspace._id}|${someone._id}|` };
    await marks.insertMany([
      { _id: `${mine._id}old`, at: new Date(Date.now() - 11 * 60_000) },
      { _id: `${mine._id}young`, at: new Date(Date.now() - 60_000) },
    ]);
    await contact({ phone: '+14155550310', name: 'Named Now' });
    expect((await marks.find({ _id: { $gt: mine._id, $lt: `${mine._id}~` } }).toArray()).map((m) => m._id)).toEqual([`${mine._id}young`]);
  });
});
