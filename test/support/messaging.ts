import request from 'supertest';
import type { Db } from 'mongodb';
import { eventsCollection, type EventDoc } from '../../src/events/eventStore';
import type { TestApi } from './app';

/** Console calls and event reads shared by the messaging and conversation tests. */

export const CONSOLE = { Authorization: 'Bearer test-console-token-0123456789' };

export async function injectInbound(api: TestApi, workspaceId: string, body: Record<string, unknown>) {
  const res = await request(api.server).post(`/console/v1/workspaces/${workspaceId}/whatsapp/inbound`).set(CONSOLE).send(body);
  if (res.status !== 201) throw new Error(`inbound refused: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { message_id: string; conversation_id: string; transcript_message_id: string; sender_id: string; opted_out: boolean };
}

export async function scriptRecipient(api: TestApi, workspaceId: string, recipient: string, body: Record<string, unknown>) {
  const res = await request(api.server)
    .put(`/console/v1/workspaces/${workspaceId}/simulator/whatsapp/${encodeURIComponent(recipient)}`)
    .set(CONSOLE)
    .send(body);
  if (res.status !== 200) throw new Error(`script refused: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function updateWorkspace(api: TestApi, workspaceId: string, body: Record<string, unknown>) {
  const res = await request(api.server).patch(`/console/v1/workspaces/${workspaceId}`).set(CONSOLE).send(body);
  if (res.status !== 200) throw new Error(`workspace update refused: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function eventsOf(db: Db, tenantId: string, type?: string): Promise<EventDoc[]> {
  return eventsCollection(db)
    .find({ tenant_id: tenantId, ...(type ? { type } : {}) })
    .sort({ created_at: 1, _id: 1 })
    .toArray();
}

/**
 * Polls until `probe` answers something truthy. The default deadline is for a CI machine whose
 * two cores run every suite at once: there a step that takes 100 ms alone took over 20 s.
 */
export async function eventually<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
