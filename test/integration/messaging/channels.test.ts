import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { startTestApi, useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { CONSOLE } from '../../support/messaging';
import { createTestWorkspace } from '../../support/workspaces';

/** GET /api/v1/channels reflects what a send can use right now (api-core §2, Agents and channels). */
describe('GET /api/v1/channels and the workspace’s senders', () => {
  const { api } = useTestApi();

  const channels = async (key: string) => (await request(api.server).get('/api/v1/channels').set(bearer(key))).body;
  const patchSender = (workspaceId: string, senderId: string, body: Record<string, unknown>) =>
    request(api.server).patch(`/console/v1/workspaces/${workspaceId}/senders/${senderId}`).set(CONSOLE).send(body);

  it('lists connected senders only, with is_default on the one a send without sender_id uses', async () => {
    const ws = await createTestWorkspace(api.db);
    const second = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/senders`)
      .set(CONSOLE)
      .send({ phone: '+919000044444', display_name: 'Support' });
    let body = await channels(ws.key);
    expect(body.message_channels).toEqual(['whatsapp']);
    expect(body.senders.map((s: { sender_id: string; is_default: boolean }) => [s.sender_id, s.is_default])).toEqual([
      [ws.senderId, true],
      [second.body.sender_id, false],
    ]);

    await patchSender(ws.workspaceId, ws.senderId, { connected: false });
    body = await channels(ws.key);
    expect(body.senders).toEqual([{ sender_id: second.body.sender_id, channel: 'whatsapp', phone: '+919000044444', display_name: 'Support', is_default: true }]);
    const sent = await request(api.server).post('/api/v1/messages').set(bearer(ws.key)).send({ to: '+919800000123', template: { name: 'welcome' } });
    expect(sent.status).toBe(201);

    await patchSender(ws.workspaceId, second.body.sender_id, { connected: false });
    body = await channels(ws.key);
    expect(body.message_channels).toEqual([]);
    expect(body.senders).toEqual([]);
    expect(body.call_channels).toEqual(['voice']);
  });

  it('drops whatsapp when the plan lacks the chat channel', async () => {
    const ws = await createTestWorkspace(api.db);
    await collections(api.db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { 'plan.chat_channel': false } });
    expect(await channels(ws.key)).toMatchObject({ message_channels: [], senders: [] });
  });

  it('drops whatsapp on a deployment without it', async () => {
    const voiceOnly = await startTestApi({ env: { DEPLOYMENT_CHANNELS: 'voice' } });
    try {
      const ws = await createTestWorkspace(voiceOnly.db);
      const body = (await request(voiceOnly.server).get('/api/v1/channels').set(bearer(ws.key))).body;
      expect(body).toMatchObject({ message_channels: [], senders: [], call_channels: ['voice'] });
    } finally {
      await voiceOnly.close();
    }
  });
});
