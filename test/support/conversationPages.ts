import type { Server } from 'node:http';
import request from 'supertest';
import { CONSOLE } from './messaging';

/**
 * The console's conversations list for `?q=`, every page of `limit` as the console walks them
 * (each answered 200, next_cursor followed to its end): the conversation ids in order.
 */
export async function conversationIdsFound(server: Server, workspaceId: string, q: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res: request.Response = await request(server)
      .get(`/console/v1/workspaces/${workspaceId}/conversations`)
      .query({ q, limit, ...(cursor ? { cursor } : {}) })
      .set(CONSOLE);
    expect({ q, status: res.status }).toEqual({ q, status: 200 });
    seen.push(...res.body.items.map((c: { conversation_id: string }) => c.conversation_id));
    cursor = res.body.next_cursor;
  } while (cursor);
  return seen;
}
