import request from 'supertest';
import { callCollections } from '../../../src/calls/callStore';
import { campaignCollections } from '../../../src/campaigns/campaign';
import { collections } from '../../../src/db/collections';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { sendIntentsCollection } from '../../../src/messaging/sendIntents';
import { useTestApi } from '../../support/app';
import { scriptCallee } from '../../support/calls';
import { bearer, envelope } from '../../support/http';

/**
 * `metadata` on POST /calls, POST /messages and POST /campaigns (src/domain/metadata.ts): what the database
 * would refuse is a 400 validation failure whose `loc` names the key, before anything is
 * sent, charged or written; everything else is stored as sent.
 */
describe('metadata over HTTP', () => {
  const { api, ws } = useTestApi({ worker: true });
  let n = 0;
  const fresh = () => `+9196${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  // Sent as raw JSON: a NUL inside a key survives only as the escape `\u0000`.
  const post = (path: string, json: string) =>
    request(api.server).post(path).set(bearer(ws.key)).set('Content-Type', 'application/json').send(json);
  const template = (to: string) => `"to": "${to}", "template": {"name": "order_update", "variables": ["Asha", "A-1", "Friday"]}`;
  const plan = async () => (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.plan;

  const refused: [string, string, (string | number)[], string][] = [
    ['a nested array', '{"a": [[1]]}', ['a', 0], 'Metadata may not hold an array directly inside an array.'],
    ['a key starting with $', '{"$where": "1"}', ['$where'], 'Metadata keys may not start with "$".'],
    ['a nested key starting with $', '{"order": {"$set": 1}}', ['order', '$set'], 'Metadata keys may not start with "$".'],
    ['a key containing a dot', '{"a.b": 1}', ['a.b'], 'Metadata keys may not contain ".".'],
    ['a key containing NUL', '{"a\\u0000b": 1}', ['a\u0000b'], 'Metadata keys may not contain NUL characters.'],
  ];

  describe('POST /api/v1/messages', () => {
    it.each(refused)('refuses %s with 400 at its key; nothing is sent, charged or recorded', async (_what, metadata, at, msg) => {
      const before = await plan();
      const to = fresh();
      const res = await post('/api/v1/messages', `{${template(to)}, "metadata": ${metadata}}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'metadata', ...at], msg, type: 'custom' }] }));
      expect(await plan()).toMatchObject({ conversations_used: before.conversations_used, prepaid_credits: before.prepaid_credits });
      expect(await outboundMessagesCollection(api.db).countDocuments({ to })).toBe(0);
      expect(await sendIntentsCollection(api.db).countDocuments({ 'request.to': to })).toBe(0);
    });

    it('stores nested objects and arrays of objects as sent', async () => {
      const metadata = { order: { id: 'A-1', lines: [{ sku: 'x', qty: 2 }, 'gift'] }, 'odd key$': null };
      const res = await post('/api/v1/messages', `{${template(fresh())}, "metadata": ${JSON.stringify(metadata)}}`);
      expect(res.status).toBe(201);
      expect(res.body).not.toHaveProperty('metadata');
      expect((await outboundMessagesCollection(api.db).findOne({ _id: res.body.message_id }))!.metadata).toEqual(metadata);
    });
  });

  describe('POST /api/v1/calls', () => {
    it.each(refused)('refuses %s with 400 at its key; no call is written', async (_what, metadata, at, msg) => {
      const to = fresh();
      const res = await post('/api/v1/calls', `{"to": "${to}", "metadata": ${metadata}}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'metadata', ...at], msg, type: 'custom' }] }));
      expect(await callCollections(api.db).calls.countDocuments({ tenant_id: ws.workspaceId, to })).toBe(0);
    });

    it('stores nested metadata on the call', async () => {
      const to = fresh();
      await scriptCallee(api, ws, to, { answer: false, ring_seconds: 0.2 });
      const metadata = { crm: { lead: 'L-9', tags: ['warm', { source: 'ad' }] } };
      const res = await post('/api/v1/calls', JSON.stringify({ to, ring_seconds: 10, metadata }));
      expect(res.status).toBe(201);
      expect((await callCollections(api.db).calls.findOne({ _id: res.body.call_id }))!.metadata).toEqual(metadata);
    });
  });

  describe('POST /api/v1/campaigns', () => {
    const draft = (name: string) => `"name": "${name}", "audience": {"kind": "segment", "tags": ["vip"]}, "template": {"name": "order_update", "variables": ["{{contact.name}}"]}`;

    it.each(refused)('refuses %s with 400 at its key; no draft is written', async (_what, metadata, at, msg) => {
      const name = `metadata ${n++}`;
      const res = await post('/api/v1/campaigns', `{${draft(name)}, "metadata": ${metadata}}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'metadata', ...at], msg, type: 'custom' }] }));
      expect(await campaignCollections(api.db).campaigns.countDocuments({ tenant_id: ws.workspaceId, name })).toBe(0);
    });

    it('stores nested metadata on the draft, never returned', async () => {
      const metadata = { crm: { list: 'L-9', tags: ['warm', { source: 'ad' }] } };
      const res = await post('/api/v1/campaigns', `{${draft('metadata kept')}, "metadata": ${JSON.stringify(metadata)}}`);
      expect(res.status).toBe(201);
      expect(res.body).not.toHaveProperty('metadata');
      expect((await campaignCollections(api.db).campaigns.findOne({ _id: res.body.campaign_id }))!.metadata).toEqual(metadata);
    });
  });
});
