import request from 'supertest';
import { eventsCollection } from '../../src/events/eventStore';
import type { TestApi } from './app';
import { bearer } from './http';
import type { TestWorkspace } from './workspaces';

export const CONSOLE_AUTH = { Authorization: 'Bearer test-console-token-0123456789' };

/** Scripts the simulated callee at `destination` through the console. */
export async function scriptCallee(api: TestApi, ws: TestWorkspace, destination: string, script: Record<string, unknown>): Promise<void> {
  const res = await request(api.server)
    .put(`/console/v1/workspaces/${ws.workspaceId}/simulator/calls/${encodeURIComponent(destination)}`)
    .set(CONSOLE_AUTH)
    .send(script);
  if (res.status !== 200) throw new Error(`scripting ${destination} failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * Reads GET /calls/{id} until `done` says so (the body is the API's call object). Every
 * 600 ms, so one poller stays well under the key's 120 requests a minute.
 */
export async function pollCall(api: TestApi, key: string, callId: string, done: (call: any) => boolean, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(api.server).get(`/api/v1/calls/${callId}`).set(bearer(key));
    if (res.status === 200 && done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`call ${callId} stuck: ${res.status} ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 600));
  }
}

/**
 * Waits until the call's `call.ended` is stored: the last write of its end, after the call's
 * ending write (which `pollCall` sees), the live place's release, the bill and the day's tally
 * (src/calls/finishCall.ts, src/calls/endCall.ts).
 */
export async function callEndStored(api: TestApi, callId: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await eventsCollection(api.db).countDocuments({ type: 'call.ended', 'data.call_id': callId })) === 0) {
    if (Date.now() > deadline) throw new Error(`call ${callId}: call.ended never stored`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
