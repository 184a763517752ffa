import request from 'supertest';
import { contactCollections, findContactByPhone, matchOrCreateContact, IdentityConflictError } from '../../../src/contacts/contacts';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const NEED_IDENTITY = 'Provide an email or a phone number.';

describe('contacts (POST /api/v1/contacts, GET /api/v1/contacts/lookup)', () => {
  const { api, ws } = useTestApi();
  let used = 0;
  let key: string;

  beforeAll(async () => {
    key = ws.key;
  });

  /** A fresh contacts:write key every 100 requests: the per-key limit must not decide a test. */
  async function auth(): Promise<{ Authorization: string }> {
    if (++used > 100) {
      key = (await ws.addKey(['contacts:write'])).key;
      used = 1;
    }
    return bearer(key);
  }
  const upsert = async (body: Record<string, unknown>, as?: string) =>
    request(api.server).post('/api/v1/contacts').set(as ? bearer(as) : await auth()).send(body);
  const lookup = async (query: { email?: string; phone?: string }, as?: string) =>
    request(api.server).get('/api/v1/contacts/lookup').query(query).set(as ? bearer(as) : await auth());

  let n = 0;
  /** A fresh email and Indian mobile number per call. */
  const fresh = () => {
    n += 1;
    const digits = `${Date.now() % 1_000_000}`.padStart(6, '0') + `${n}`.padStart(3, '0');
    return { email: `person${n}.${Date.now()}@example.com`, phone: `+919${digits.slice(-9)}`, local: `9${digits.slice(-9)}` };
  };

  describe('POST creates or matches', () => {
    it('creates a contact (201, created true) with the email normalised and the phone in E.164', async () => {
      const who = fresh();
      const res = await upsert({ name: ' Asha Rao ', email: `  ${who.email.toUpperCase()} `, phone: `0${who.local.slice(0, 5)} ${who.local.slice(5)}`, external_id: 'crm-1', tags: ['VIP Customer', 'vip customer'] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        contact_id: expect.stringMatching(/^cnt_[0-9a-f]{24}$/),
        name: 'Asha Rao',
        email: who.email,
        phone: who.phone,
        external_id: 'crm-1',
        tags: ['vip-customer'],
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
        created: true,
        matched_on: null,
      });
    });

    it('matches by email (any case), then by phone (any form), answering 201 with created false', async () => {
      const who = fresh();
      const created = await upsert({ email: who.email, phone: who.phone });
      const byEmail = await upsert({ email: who.email.toUpperCase() });
      expect(byEmail.status).toBe(201);
      expect(byEmail.body).toMatchObject({ contact_id: created.body.contact_id, created: false, matched_on: 'email' });
      const byPhone = await upsert({ phone: who.local });
      expect(byPhone.status).toBe(201);
      expect(byPhone.body).toMatchObject({ contact_id: created.body.contact_id, created: false, matched_on: 'phone' });
      const both = await upsert({ email: who.email, phone: who.phone });
      expect(both.body).toMatchObject({ contact_id: created.body.contact_id, matched_on: 'email' });
    });

    it('matches on email first even when the phone is new, and gives a phoneless contact that phone', async () => {
      const who = fresh();
      const other = fresh();
      const created = await upsert({ email: who.email, name: 'First' });
      const matched = await upsert({ email: who.email, phone: other.phone, name: 'Second', tags: ['new tag'] });
      expect(matched.body).toMatchObject({ contact_id: created.body.contact_id, name: 'First', phone: other.phone, tags: ['new-tag'], matched_on: 'email' });
      const found = await lookup({ phone: other.phone });
      expect(found.status).toBe(200);
      expect(found.body.contact_id).toBe(created.body.contact_id);
    });

    it('never overwrites a value the matched contact already has', async () => {
      const who = fresh();
      const other = fresh();
      const created = await upsert({ email: who.email, phone: who.phone, external_id: 'a' });
      const matched = await upsert({ email: who.email, phone: other.phone, external_id: 'b' });
      expect(matched.body).toMatchObject({ contact_id: created.body.contact_id, phone: who.phone, external_id: 'a' });
      expect((await lookup({ phone: other.phone })).status).toBe(404);
    });

    it('answers 409 identity_conflict when the email and the phone belong to two contacts, and merges nothing', async () => {
      const a = fresh();
      const b = fresh();
      const first = await upsert({ email: a.email, name: 'A' });
      const second = await upsert({ phone: b.phone, name: 'B' });
      const res = await upsert({ email: a.email, phone: b.phone, name: 'Both' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(envelope('conflict', 'Those details belong to two different contacts.', { reason: 'identity_conflict' }));
      const byEmail = await lookup({ email: a.email });
      const byPhone = await lookup({ phone: b.phone });
      expect(byEmail.body).toMatchObject({ contact_id: first.body.contact_id, phone: null, name: 'A' });
      expect(byPhone.body).toMatchObject({ contact_id: second.body.contact_id, email: null, name: 'B' });
    });

    it.each([
      ['an empty body', {}],
      ['only a name', { name: 'Nobody' }],
      ['blank email and phone', { email: '  ', phone: '' }],
      ['null email and phone', { email: null, phone: null, external_id: 'x' }],
    ])('refuses %s: 400 Provide an email or a phone number.', async (_, body) => {
      const res = await upsert(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', NEED_IDENTITY));
    });

    it('refuses a phone that is not usable in the workspace country, naming the field', async () => {
      const res = await upsert({ phone: '12345' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [
            {
              loc: ['body', 'phone'],
              msg: "That phone number isn't usable: give it with its country code (+…), or as a number of the workspace's country (IN).",
              type: 'phone_invalid',
            },
          ],
        }),
      );
    });

    it.each([
      ['an extension, which E.164 cannot carry', (p: string) => `${p.slice(0, 3)} ${p.slice(3, 5)} ${p.slice(5, 9)} ${p.slice(9)} ext 5`],
      ['a leading NUL byte', (p: string) => `\u0000${p}`],
      ['a newline inside', (p: string) => `${p.slice(0, 6)}\n${p.slice(6)}`],
      ['a zero-width space inside', (p: string) => `${p.slice(0, 6)}\u200b${p.slice(6)}`],
      ['the number inside other words', (p: string) => `call ${p} please`],
    ])('refuses a phone with %s (400 phone_invalid), nor matches the contact of its digits on lookup', async (_, form) => {
      const who = fresh();
      expect((await upsert({ phone: who.phone })).status).toBe(201);
      const res = await upsert({ phone: form(who.phone) });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([expect.objectContaining({ loc: ['body', 'phone'], type: 'phone_invalid' })]);
      const found = await lookup({ phone: form(who.phone) });
      expect(found.status).toBe(400);
      expect(found.body.error.details.errors).toEqual([expect.objectContaining({ loc: ['query', 'phone'], type: 'phone_invalid' })]);
    });

    it.each([
      ['an email that is not an address', { email: 'not-an-email' }, ['body', 'email']],
      ['an email over 200', { email: `${'e'.repeat(195)}@x.com` }, ['body', 'email']],
      ['a phone over 32', { phone: '1'.repeat(33) }, ['body', 'phone']],
      ['a name over 140', { email: 'a@b.co', name: 'n'.repeat(141) }, ['body', 'name']],
      ['more than 20 tags', { email: 'a@b.co', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ['body', 'tags']],
    ])('refuses %s with the validation envelope', async (_, body, loc) => {
      const res = await upsert(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_argument', message: 'Request validation failed.' });
      expect(res.body.error.details.errors).toEqual([expect.objectContaining({ loc })]);
    });

    it('reads a local number in the workspace’s own country (an AE workspace)', async () => {
      const admin = bearer(api.config.CONSOLE_TOKEN!);
      const created = await request(api.server).post('/console/v1/workspaces').set(admin).send({ name: 'Dubai', country: 'AE', demo: true });
      await request(api.server).patch(`/console/v1/workspaces/${created.body.workspace_id}`).set(admin).send({ country: 'AE' });
      const res = await upsert({ phone: '050 123 4567' }, created.body.api_key);
      expect(res.status).toBe(201);
      expect(res.body.phone).toBe('+971501234567');
    });

    it('ends ten concurrent creates with the same email on one contact', async () => {
      const who = fresh();
      const all = await Promise.all(Array.from({ length: 10 }, async () => upsert({ email: who.email, name: 'Racer' })));
      expect(all.map((r) => r.status)).toEqual(Array(10).fill(201));
      expect(new Set(all.map((r) => r.body.contact_id)).size).toBe(1);
      expect(all.filter((r) => r.body.created === true).length).toBe(1);
      expect(await contactCollections(api.db).contacts.countDocuments({ tenant_id: ws.workspaceId, email: who.email })).toBe(1);
    });

    it('keeps each workspace’s contacts apart', async () => {
      const other = await createTestWorkspace(api.db);
      const who = fresh();
      const mine = await upsert({ email: who.email });
      const theirs = await upsert({ email: who.email }, other.key);
      expect(theirs.body.created).toBe(true);
      expect(theirs.body.contact_id).not.toBe(mine.body.contact_id);
    });
  });

  describe('GET /contacts/lookup', () => {
    it('finds by email, by phone in E.164 or local form, and by email first when both are given', async () => {
      const a = fresh();
      const b = fresh();
      const first = await upsert({ email: a.email, phone: a.phone, name: 'Lookup' });
      const second = await upsert({ email: b.email, phone: b.phone });
      for (const query of [{ email: a.email.toUpperCase() }, { phone: a.phone }, { phone: a.local }, { email: a.email, phone: b.phone }]) {
        const res = await lookup(query);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          contact_id: first.body.contact_id,
          name: 'Lookup',
          email: a.email,
          phone: a.phone,
          external_id: null,
          tags: [],
          created_at: expect.stringMatching(TIMESTAMP),
          updated_at: expect.stringMatching(TIMESTAMP),
        });
      }
      const fallsBack = await lookup({ email: 'nobody@example.com', phone: b.phone });
      expect(fallsBack.body.contact_id).toBe(second.body.contact_id);
    });

    it('answers 400 when neither is given, 404 Contact not found. when nobody matches or the contact is another workspace’s', async () => {
      for (const query of [{}, { email: '' }, { email: '  ', phone: '' }]) {
        const res = await lookup(query);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(envelope('invalid_argument', NEED_IDENTITY));
      }
      const other = await createTestWorkspace(api.db);
      const who = fresh();
      await upsert({ email: who.email }, other.key);
      for (const query of [{ email: who.email }, { phone: fresh().phone }]) {
        const res = await lookup(query);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(envelope('not_found', 'Contact not found.'));
      }
    });

    it('refuses an unusable phone as a query validation failure', async () => {
      const res = await lookup({ phone: 'abc' });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([expect.objectContaining({ loc: ['query', 'phone'], type: 'phone_invalid' })]);
    });
  });

  it('requires contacts:write on both routes', async () => {
    const { key: narrow } = await ws.addKey(['tickets:write']);
    const expected = envelope('permission_denied', 'This key lacks the contacts:write scope this route requires.', {
      reason: 'missing_scope',
      required_scope: 'contacts:write',
    });
    for (const res of [await upsert({ email: 'a@b.co' }, narrow), await lookup({ email: 'a@b.co' }, narrow)]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(expected);
    }
  });

  describe('the shared module other features call', () => {
    it('matches or creates, finds by phone, and reports conflicts as IdentityConflictError', async () => {
      const now = new Date();
      const workspace = { _id: ws.workspaceId, country: 'IN' };
      const a = fresh();
      const b = fresh();
      const made = await matchOrCreateContact(api.db, workspace, { name: 'Module', phone: a.local }, now);
      expect(made).toMatchObject({ created: true, matchedOn: null, contact: { phone: a.phone, email: null } });
      const again = await matchOrCreateContact(api.db, workspace, { phone: a.phone, email: b.email }, now);
      expect(again).toMatchObject({ created: false, matchedOn: 'phone', contact: { _id: made.contact._id, email: b.email } });
      expect((await findContactByPhone(api.db, ws.workspaceId, a.local, 'IN'))?._id).toBe(made.contact._id);
      await matchOrCreateContact(api.db, workspace, { email: a.email }, now);
      await expect(matchOrCreateContact(api.db, workspace, { email: a.email, phone: a.phone }, now)).rejects.toBeInstanceOf(IdentityConflictError);
    });
  });
});
