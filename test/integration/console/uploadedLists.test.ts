import request from 'supertest';
import { LIST_LIMITS } from '../../../src/lists/limits';
import { recordOptOut } from '../../../src/messaging/optOut';
import type { SendAttempt, SendRequest, WhatsAppProvider } from '../../../src/messaging/whatsAppSender';
import { startTestApi, type TestApi } from '../../support/app';
import { zoneOpenAt } from '../../support/campaigns';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/** Every message the worker sent, with its template body values. */
class RecordingWhatsAppProvider implements WhatsAppProvider {
  readonly name = 'simulator' as const;
  readonly sent: { to: string; body: string[] }[] = [];
  private n = 0;
  send(req: SendRequest): Promise<SendAttempt> {
    if (req.message.type === 'template') this.sent.push({ to: req.to, body: req.message.body });
    this.n += 1;
    return Promise.resolve({ ok: true, messageId: `wamid.LIST${String(this.n).padStart(20, '0')}` });
  }
}

/**
 * Uploaded lists through the console's HTTP routes (docs/console.md "Uploaded lists"): the
 * upload and its refusals, a campaign on the list (console-only), evaluate naming bad rows by
 * line, launch sending each row its own values; the public API refusing the kind; a contact
 * audience refusing a list's column.
 */
describe('uploaded lists (/console/v1/workspaces/{id}/lists)', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  let admin: { Authorization: string };
  const provider = new RecordingWhatsAppProvider();

  beforeAll(async () => {
    api = await startTestApi({ worker: { whatsapp: provider } });
    ws = await createTestWorkspace(api.db);
    admin = bearer(api.config.CONSOLE_TOKEN!);
  });
  afterAll(async () => {
    await api?.close();
  });

  const lists = (workspaceId = ws.workspaceId) => `/console/v1/workspaces/${workspaceId}/lists`;
  const campaigns = () => `/console/v1/workspaces/${ws.workspaceId}/campaigns`;
  const upload = (csv: string | Buffer, query: string, workspaceId?: string) =>
    request(api.server).post(`${lists(workspaceId)}?${query}`).set(admin).set('Content-Type', 'text/csv').send(csv);
  const get = (path: string) => request(api.server).get(path).set(admin);
  const post = (path: string, body?: object) => (body === undefined ? request(api.server).post(path).set(admin) : request(api.server).post(path).set(admin).send(body));

  const CSV = [
    'Phone,Name,Order,Due Day',
    '+919811100001,Asha,A-17,Friday', // line 2: sent
    ',No number,A-18,Friday', // line 3: invalid_destination
    '12345,Short,A-19,Friday', // line 4: invalid_destination
    '98111 00001,Asha again,A-20,Friday', // line 5: the number of line 2 (national form): duplicate_recipient
    '+919811100005,Opted out,A-21,Friday', // line 6: suppressed
    '+919811100006,No order,,Friday', // line 7: missing_variable order
    '+919811100007,Ravi,B-2,Monday', // line 8: sent
  ].join('\n');

  it('uploads a CSV: columns become variables, the first rows are shown, the list is listed and read', async () => {
    const res = await upload(CSV, 'name=March%20orders&file_name=orders.csv');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      list_id: expect.stringMatching(/^lst_[0-9a-f]{24}$/),
      name: 'March orders',
      file_name: 'orders.csv',
      columns: [
        { name: 'phone', header: 'Phone' },
        { name: 'name', header: 'Name' },
        { name: 'order', header: 'Order' },
        { name: 'due_day', header: 'Due Day' },
      ],
      phone_column: 'phone',
      variables: ['{{phone}}', '{{name}}', '{{order}}', '{{due_day}}'],
      rows: 7,
      bytes: Buffer.byteLength(CSV),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.+\+00:00$/),
      preview: expect.any(Array),
    });
    expect(res.body.preview.slice(0, 2)).toEqual([
      { row: 2, values: { phone: '+919811100001', name: 'Asha', order: 'A-17', due_day: 'Friday' } },
      { row: 3, values: { phone: '', name: 'No number', order: 'A-18', due_day: 'Friday' } },
    ]);
    const id = res.body.list_id as string;
    expect((await get(`${lists()}/${id}`)).body).toEqual(res.body);
    const page = await get(`${lists()}?limit=1`);
    expect(page.status).toBe(200);
    const { preview: _preview, ...summary } = res.body as Record<string, unknown>;
    expect(page.body).toEqual({ items: [summary], next_cursor: expect.any(String) });
    const next = await get(`${lists()}?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(next.body).toEqual({ items: [], next_cursor: null });
  });

  it('refuses a file that breaks a rule whole, with the reason and row; the wrong type, bytes that are not UTF-8; an unknown or foreign list is 404', async () => {
    let res = await upload('Name,City\nAsha,Pune\n', 'name=x');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      envelope('invalid_argument', 'No column is named "phone"; the columns are name, city. Name the phone column "phone", or say which column holds the numbers.', {
        reason: 'no_phone_column',
        row: 1,
      }),
    );
    res = await upload('Name,Mobile\nAsha,+919811100001\n', 'name=x&phone_column=Mobile');
    expect([res.status, res.body.phone_column]).toEqual([201, 'mobile']);
    res = await upload('phone,name\n1,Asha\n2,Ravi,extra\n', 'name=x');
    expect(res.body).toEqual(envelope('invalid_argument', 'Row 3 has 3 cells but the header names 2 columns.', { reason: 'invalid_csv', row: 3 }));
    res = await upload(Buffer.from([0x70, 0x68, 0x6f, 0x6e, 0x65, 0x0a, 0xe9, 0x0a]), 'name=x');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(envelope('invalid_argument', 'The file is not UTF-8 text: save it as "CSV UTF-8".', { reason: 'invalid_encoding' }));
    res = await request(api.server).post(`${lists()}?name=x`).set(admin).send({ csv: 'phone\n1\n' });
    expect(res.status).toBe(415);
    expect(res.body).toEqual(envelope('invalid_argument', 'Send the file as text/csv.'));
    res = await upload(Buffer.alloc(LIST_LIMITS.maxBytes + 1, 'a'), 'name=x');
    expect(res.status).toBe(413);
    expect(res.body).toEqual(envelope('invalid_argument', `The file is larger than ${LIST_LIMITS.maxBytes} bytes.`));
    res = await upload('phone\n+919811100001\n', 'file_name=x.csv');
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].loc).toEqual(['query', 'name']);

    const other = await createTestWorkspace(api.db);
    const foreign = (await upload('phone\n+919811100001\n', 'name=theirs', other.workspaceId)).body.list_id as string;
    for (const id of [foreign, 'lst_000000000000000000000000', 'not-a-list']) {
      res = await get(`${lists()}/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelope('not_found', 'Uploaded list not found.'));
    }
  });

  it('a campaign on the list: evaluate names bad rows by line and reason, launch sends each row its own values', async () => {
    const listId = (await upload(CSV, 'name=Orders')).body.list_id as string;
    await recordOptOut(api.db, { tenantId: ws.workspaceId, phone: '+919811100005', sourceMessageId: 'msg_test', at: new Date() });
    const created = await post(campaigns(), {
      name: 'Order updates from a file',
      audience: { kind: 'uploaded_list', list_id: listId },
      template: { name: 'order_update', variables: ['{{name}}', '{{order}}', 'by {{due_day}}'] },
      schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'draft', version: 1, audience: { kind: 'uploaded_list', list_id: listId, contact_id_count: 0 } });
    const id = created.body.campaign_id as string;

    const evaluated = await post(`${campaigns()}/${id}/evaluate`);
    expect(evaluated.status).toBe(200);
    expect(evaluated.body).toMatchObject({
      eligible: 2,
      total_rows: 7,
      excluded: { invalid_destination: 2, duplicate_recipient: 1, suppressed: 1, missing_variable: 1 },
      invalid_rows: [
        { reason: 'invalid_destination', row: 3 },
        { reason: 'invalid_destination', row: 4 },
        { reason: 'duplicate_recipient', row: 5 },
        { reason: 'suppressed', row: 6 },
        { reason: 'missing_variable', row: 7, field: 'order' },
      ],
      sample: [
        { to: '+919811100001', name: 'Asha', variables: { 1: 'Asha', 2: 'A-17', 3: 'by Friday' } },
        { to: '+919811100007', name: 'Ravi', variables: { 1: 'Ravi', 2: 'B-2', 3: 'by Monday' } },
      ],
    });
    expect(evaluated.body.invalid_rows.every((r: object) => !('contact_id' in r))).toBe(true);
    // The warnings speak of the file's rows, whose fix is in the file.
    expect(evaluated.body.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'invalid_destination', severity: 'warn', count: 2, message: '2 rows have no usable phone number.' }),
        expect.objectContaining({ code: 'missing_variable', count: 1, fix: 'Fill in the empty cells in the file and upload it again, or use a literal value.' }),
      ]),
    );

    const launched = await post(`${campaigns()}/${id}/launch`, { expected_version: 1, confirm_recipients: 2 });
    expect(launched.status).toBe(200);
    expect(launched.body).toMatchObject({ status: 'running', recipients: 2 });
    await waitFor(async () => (await get(`${campaigns()}/${id}`)).body.status === 'completed');
    expect(provider.sent.filter((s) => ['+919811100001', '+919811100007'].includes(s.to))).toEqual([
      { to: '+919811100001', body: ['Asha', 'A-17', 'by Friday'] },
      { to: '+919811100007', body: ['Ravi', 'B-2', 'by Monday'] },
    ]);
    const recipients = await get(`${campaigns()}/${id}/recipients`);
    expect(recipients.body.items.map((r: { contact_id: string | null; row: number; to: string; state: string }) => [r.contact_id, r.row, r.to, r.state])).toEqual([
      [null, 2, '+919811100001', 'sent'],
      [null, 8, '+919811100007', 'sent'],
    ]);
  });

  it('a call campaign on the list fills its purpose and script from each row', async () => {
    const listId = (await upload('phone,name,plan\n+919811100101,Meera,Gold\n', 'name=Renewals')).body.list_id as string;
    const created = await post(campaigns(), {
      name: 'Renewal calls',
      channel: 'voice',
      agent_id: ws.agentId,
      audience: { kind: 'uploaded_list', list_id: listId },
      purpose: 'Renew the {{plan}} plan for {{name}}',
      script: 'Confirm:\n{{all}}',
    });
    expect(created.status).toBe(201);
    const evaluated = await post(`${campaigns()}/${created.body.campaign_id}/evaluate`);
    expect(evaluated.body.sample).toEqual([
      { to: '+919811100101', name: 'Meera', variables: { purpose: 'Renew the Gold plan for Meera', script: 'Confirm:\nphone: +919811100101\nname: Meera\nplan: Gold' } },
    ]);
  });

  it('refuses a variable the audience cannot fill: a list column on a contact audience, a column the list lacks; a missing list', async () => {
    const listId = (await upload('phone,name,city\n+919811100201,Asha,Pune\n', 'name=Cities')).body.list_id as string;
    const body = (audience: object, variables: string[]) => ({ name: 'x', audience, template: { name: 'order_update', variables } });
    let res = await post(campaigns(), body({ kind: 'contact_ids', contact_ids: [] }, ['{{contact.name}}', '{{city}}', 'x']));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      envelope('invalid_argument', 'No contact can fill {{city}}; use {{contact.name}}, {{contact.phone}}, {{contact.email}}.', {
        reason: 'unknown_variable',
        field: 'city',
        loc: ['body', 'template', 'variables', 1],
      }),
    );
    res = await post(campaigns(), body({ kind: 'uploaded_list', list_id: listId }, ['{{name}}', '{{order}}', 'x']));
    expect(res.body).toEqual(
      envelope('invalid_argument', 'The list "Cities" has no column for {{order}}; use {{phone}}, {{name}}, {{city}}.', {
        reason: 'unknown_variable',
        field: 'order',
        loc: ['body', 'template', 'variables', 1],
      }),
    );
    res = await post(campaigns(), body({ kind: 'uploaded_list', list_id: 'lst_000000000000000000000000' }, ['a', 'b', 'c']));
    expect(res.body).toEqual(envelope('invalid_argument', 'Uploaded list lst_000000000000000000000000 not found.', { reason: 'invalid_argument', field: 'audience.list_id' }));
    res = await post(campaigns(), body({ kind: 'uploaded_list' }, ['a', 'b', 'c']));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toEqual([{ loc: ['body', 'audience', 'list_id'], msg: 'An uploaded_list audience needs a list_id.', type: 'custom' }]);
  });

  it('the public API refuses the kind: uploaded lists are console-only', async () => {
    const listId = (await upload('phone\n+919811100301\n', 'name=Public')).body.list_id as string;
    const res = await request(api.server)
      .post('/api/v1/campaigns')
      .set(bearer(ws.key))
      .send({ name: 'x', audience: { kind: 'uploaded_list', list_id: listId }, template: { name: 'order_update', variables: ['a', 'b', 'c'] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      envelope('invalid_argument', 'Request validation failed.', {
        errors: [
          {
            loc: ['body', 'audience', 'kind'],
            msg: 'Uploaded lists are console-only: create the campaign in the console, or use contact_ids or segment.',
            type: 'invalid_value',
          },
        ],
      }),
    );
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not met in time');
}
