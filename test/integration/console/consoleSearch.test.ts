import request from 'supertest';
import { callCollections } from '../../../src/calls/callStore';
import { CONSOLE_AUTH } from '../../support/calls';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { injectInbound } from '../../support/messaging';
import { storedCall } from '../../support/storedRecords';
import { createTestWorkspace } from '../../support/workspaces';

/** The console's Find and the conversations list's search and pages: a number in any form, a name, an id. */
describe('console search: Find, and conversations by number or name, a page at a time', () => {
  const { api, ws } = useTestApi({ worker: true });
  const get = (path: string) => request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}${path}`).set(CONSOLE_AUTH);
  const find = async (q: string) => {
    const res = await get(`/find?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    return res.body.items.map((i: { kind: string; id: string }) => `${i.kind} ${i.id}`);
  };

  it('Find reads an id by its key, a number in any form POST /api/v1/calls accepts, and part of a name', async () => {
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '9811155501' });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    const asha = await injectInbound(api, ws.workspaceId, { from: '+919811155501', text: 'Hello', name: 'Asha Verma' });
    const ravi = await injectInbound(api, ws.workspaceId, { from: '+919811155502', text: 'Hi', name: 'Ravi Kumar' });

    for (const q of ['9811155501', '098111 55501', '+91 98111 55501']) {
      expect({ q, found: await find(q) }).toEqual({ q, found: [`call ${callId}`, `conversation ${asha.conversation_id}`] });
    }
    expect(await find(callId)).toEqual([`call ${callId}`]);
    expect(await find(ravi.conversation_id)).toEqual([`conversation ${ravi.conversation_id}`]);
    expect(await find('asha')).toEqual([`conversation ${asha.conversation_id}`]);
    expect(await find('KUMAR')).toEqual([`conversation ${ravi.conversation_id}`]);
    // Typed text is text, not a pattern.
    expect(await find('.*')).toEqual([]);
    expect(await find('call_nope')).toEqual([]);
    expect(await find(`CA${'0'.repeat(32)}`)).toEqual([]);

    // Another workspace finds none of these, by id or by number.
    const elsewhere = await createTestWorkspace(api.db);
    const foreign = await request(api.server).get(`/console/v1/workspaces/${elsewhere.workspaceId}/find?q=${callId}`).set(CONSOLE_AUTH);
    expect(foreign.body).toEqual({ items: [] });
    const foreignNumber = await request(api.server).get(`/console/v1/workspaces/${elsewhere.workspaceId}/find?q=9811155501`).set(CONSOLE_AUTH);
    expect(foreignNumber.body).toEqual({ items: [] });

    const empty = await get('/find?q=%20');
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['query', 'q'], msg: 'type a number, a name or an id', type: 'too_small' }] }));
  });

  it('GET …/conversations pages by cursor and narrows by a number or a name; a cursor belongs to its search', async () => {
    const own = await createTestWorkspace(api.db);
    const list = (query: string) => request(api.server).get(`/console/v1/workspaces/${own.workspaceId}/conversations${query}`).set(CONSOLE_AUTH);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.unshift((await injectInbound(api, own.workspaceId, { from: `+91981116660${i}`, text: `Message ${i}`, name: i % 2 === 0 ? `Meera ${i}` : `Sunil ${i}` })).conversation_id);
    }
    const first = await list('?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items.map((c: { conversation_id: string }) => c.conversation_id)).toEqual(ids.slice(0, 2));
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items.map((c: { conversation_id: string }) => c.conversation_id)).toEqual(ids.slice(2, 4));
    const third = await list(`?limit=2&cursor=${encodeURIComponent(second.body.next_cursor)}`);
    expect(third.body).toEqual({ items: [expect.objectContaining({ conversation_id: ids[4] })], next_cursor: null });

    const meera = await list('?q=meera&limit=2');
    expect(meera.body.items.map((c: { customer: { name: string } }) => c.customer.name)).toEqual(['Meera 4', 'Meera 2']);
    const meeraNext = await list(`?q=meera&limit=2&cursor=${encodeURIComponent(meera.body.next_cursor)}`);
    expect(meeraNext.body).toEqual({ items: [expect.objectContaining({ customer: { phone: '+919811166600', name: 'Meera 0' } })], next_cursor: null });
    expect((await list('?q=098111%2066603')).body.items.map((c: { conversation_id: string }) => c.conversation_id)).toEqual([ids[1]]);

    const mixed = await list(`?q=sunil&limit=2&cursor=${encodeURIComponent(meera.body.next_cursor)}`);
    expect(mixed.status).toBe(400);
    expect(mixed.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['query', 'cursor'], msg: 'Cursor is not valid; pass back a next_cursor unmodified.', type: 'cursor_invalid' }] }));
  });
  it('GET …/calls?created_from=&created_to= lists the calls created on those days of the workspace (Asia/Kolkata), both included', async () => {
    const own = await createTestWorkspace(api.db);
    const calls = (query: string) => request(api.server).get(`/console/v1/workspaces/${own.workspaceId}/calls${query}`).set(CONSOLE_AUTH);
    // 18:29:59 and 18:30:00 UTC on 24 November: the last second of the 24th and the first of the 25th in Kolkata (+05:30).
    const times = [new Date('2026-11-24T18:29:59Z'), new Date('2026-11-24T18:30:00Z'), new Date('2026-11-25T18:29:59Z'), new Date('2026-11-25T18:30:00Z')];
    const docs = times.map((at) => storedCall(own, at, '+919811177700', { status: 'completed' }));
    await callCollections(api.db).calls.insertMany(docs);
    const ids = async (query: string) => {
      const res = await calls(query);
      expect(res.status).toBe(200);
      return res.body.items.map((c: { call_id: string }) => c.call_id);
    };
    const [lastOf24, firstOf25, lastOf25, firstOf26] = docs.map((d) => d._id);
    expect(await ids('?created_from=2026-11-25&created_to=2026-11-25')).toEqual([lastOf25, firstOf25]);
    expect(await ids('?created_from=2026-11-25')).toEqual([firstOf26, lastOf25, firstOf25]);
    expect(await ids('?created_to=2026-11-24')).toEqual([lastOf24]);
    // With a number and a page: the cursor carries the days.
    const first = await calls('?created_from=2026-11-24&to=09811177700&limit=2');
    expect(first.body.items.map((c: { call_id: string }) => c.call_id)).toEqual([firstOf26, lastOf25]);
    expect(await ids(`?created_from=2026-11-24&to=09811177700&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`)).toEqual([firstOf25, lastOf24]);
    const otherDays = await calls(`?created_from=2026-11-25&to=09811177700&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(otherDays.status).toBe(400);

    const backwards = await calls('?created_from=2026-11-26&created_to=2026-11-25');
    expect(backwards.status).toBe(400);
    expect(backwards.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['query', 'created_to'], msg: 'the last day comes before the first', type: 'custom' }] }));
    for (const day of ['2026-02-30', '2026-13-01']) {
      const noSuchDay = await calls(`?created_from=${day}`);
      expect(noSuchDay.status).toBe(400);
      expect(noSuchDay.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['query', 'created_from'], msg: 'a date that exists, YYYY-MM-DD', type: 'custom' }] }));
    }
    const notADate = await calls('?created_to=yesterday');
    expect(notADate.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['query', 'created_to'], msg: 'a date, YYYY-MM-DD', type: 'invalid_format' }] }));
  });
});
