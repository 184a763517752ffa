import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import type { StreamProtocol } from '../../src/calls/line/streamProtocol';
import type { CallToolSettings } from '../../src/media/callTools';
import type { LineControl } from '../../src/calls/voiceLine';
import { freePort } from '../../src/local/net';
import { temporalLineEvents } from '../../src/media/lineEvents';
import { createMediaMetrics } from '../../src/media/mediaMetrics';
import { createMediaServer, MEDIA_STREAM_PATH, type MediaServer } from '../../src/media/mediaServer';
import { createLogger } from '../../src/observability/logger';
import request from 'supertest';
import { collections } from '../../src/db/collections';
import type { TestApi } from './app';
import { testServers } from './env';
import { bearer } from './http';
import type { ModelScript } from './fakeRealtime';
import { NO_TOOLS } from './mediaBridge';
import { speechMulaw } from './speechAudio';
import type { TestWorkspace } from './workspaces';

/** What is said on the line tests' calls (a delivery, a hand-over, an inbound call), in both voices. */
export const OPENING = 'Hello, this is the assistant from Acme about your delivery tomorrow. Is someone home?';
export const YES_HOME = 'Yes, someone is home.';
export const ASK_SLOT = 'Great. Preferred slot, morning or evening?';
export const MORNING = 'Morning please.';
export const GOODBYE = 'Thank you, your delivery is booked for the morning. Goodbye.';
export const ASKS_FOR_HUMAN = 'Can I talk to a person please?';
export const CONNECTING = 'Of course, I am connecting you to a colleague now.';
export const GREETING = 'Hello, you have reached Acme. How can I help you?';
export const CALLER_ASKS = 'I am calling about my order.';

/** A provider's fake stream as the person on it uses it. */
interface PersonOnStream {
  agentFinished(): Promise<void>;
  say(audio: Buffer): Promise<void>;
}

/**
 * The calls of a line test file, each with a destination and a model script of its own: the
 * purpose names the script's token, and the fake realtime model picks the script by it.
 * `prepare` speaks every sentence once (espeak-ng + sox, 8 kHz mu-law), in a beforeAll.
 */
export function lineConversations(tokenPrefix: string, numberPrefix: string) {
  const audio: Record<string, Buffer> = {};
  const scripts = new Map<string, ModelScript>();
  let n = 0;
  return {
    audio,
    prepare: (): void => {
      for (const text of [OPENING, YES_HOME, ASK_SLOT, MORNING, GOODBYE, ASKS_FOR_HUMAN, CONNECTING, GREETING, CALLER_ASKS]) audio[text] = speechMulaw(text);
    },
    /** The fake model's choice of script for a session's instructions. */
    scriptFor: (instructions: string): ModelScript => [...scripts.entries()].find(([token]) => instructions.includes(token))?.[1] ?? { turns: [], heard: [] },
    say: (text: string) => ({ audio: audio[text]!, transcript: text }),
    scripted: (script: ModelScript): { to: string; token: string } => {
      n += 1;
      const token = `${tokenPrefix}-${Date.now() % 100_000}-${n}`;
      scripts.set(token, script);
      return { to: `${numberPrefix}${String(Date.now() % 1000).padStart(3, '0')}${String(n).padStart(2, '0')}`, token };
    },
    /** What the person says: each line after the agent finishes its turn. */
    person: (lines: string[]) => async (stream: PersonOnStream): Promise<void> => {
      for (const line of lines) {
        await stream.agentFinished();
        await stream.say(audio[line]!);
      }
    },
  };
}

/**
 * The media process's wiring for one provider (src/main/media.ts), in this process on a
 * loopback port: the bridge holding that provider's LineControl and stream protocol, talking
 * to the fake realtime model.
 */
export async function startLineMedia(
  api: TestApi,
  line: { lineControl: LineControl; streamProtocol: StreamProtocol; realtime: { url: string; apiKey: string }; recordingsPrefix: string; logLevel?: 'info' | 'silent'; tools?: CallToolSettings },
): Promise<{ media: MediaServer; registry: Registry; port: number; localUrl: string; recordingsDir: string }> {
  const registry = new Registry();
  const port = await freePort();
  const recordingsDir = mkdtempSync(join(testServers.runDir(), line.recordingsPrefix));
  const media = createMediaServer({
    db: api.db,
    lineEvents: temporalLineEvents(api.temporal),
    lineControl: line.lineControl,
    streamProtocol: line.streamProtocol,
    realtime: { url: line.realtime.url, model: 'fake-realtime', apiKey: line.realtime.apiKey },
    recordingsDir,
    tools: line.tools ?? NO_TOOLS,
    metrics: createMediaMetrics(registry),
    logger: createLogger({ LOG_LEVEL: line.logLevel ?? 'silent' }, 'media'),
    registry,
  });
  await new Promise<void>((resolve) => media.server.listen(port, '127.0.0.1', resolve));
  return { media, registry, port, localUrl: `ws://127.0.0.1:${port}${MEDIA_STREAM_PATH}`, recordingsDir };
}

/** What a line test file gives a hand-over run: its API and workspace, its fake carrier, its conversations, its call polling. */
export interface HandOverLine<Stream extends PersonOnStream> {
  api: TestApi;
  ws: TestWorkspace;
  fake: {
    script(to: string, script: { kind: 'answer'; ringMs: number; talkMs: number | Promise<unknown> | null }): void;
    media: { person?: (stream: Stream, call: never) => Promise<void> } | null;
  };
  conversations: Pick<ReturnType<typeof lineConversations>, 'scripted' | 'person'>;
  until: (callId: string, done: (call: any) => boolean) => Promise<any>;
  said: (callId: string) => Promise<unknown[][]>;
}

/**
 * A call handed over to the team line of the workspace's number (set to `teamLine` for the
 * call, unset after): the person answers and says `script.heard`'s one line, the model plays
 * `script` (the opening, then the hand-over, saying CONNECTING); the team line answers and
 * talks until `whileHandedOver` is done (not a fixed time, which a loaded machine's polling
 * may not see the call human_active within). Checks the call reached human_active, then ended
 * caller_hangup with those three turns said. Answers the call and the script's token.
 */
export async function handedOverCall<Stream extends PersonOnStream>(
  line: HandOverLine<Stream>,
  script: ModelScript,
  teamLine: string,
  purpose: string,
  whileHandedOver: (callId: string) => Promise<void> = async () => undefined,
): Promise<{ callId: string; to: string; token: string }> {
  const { api, ws, fake } = line;
  const { to, token } = line.conversations.scripted(script);
  fake.script(to, { kind: 'answer', ringMs: 100, talkMs: null });
  let teamHangsUp!: () => void;
  fake.script(teamLine, { kind: 'answer', ringMs: 100, talkMs: new Promise<void>((resolve) => (teamHangsUp = resolve)) });
  fake.media!.person = line.conversations.person(script.heard);
  const numberId = ws.phoneNumber.replace(/\D/g, '');
  await collections(api.db).phoneNumbers.updateOne({ _id: numberId }, { $set: { team_line: teamLine } });
  try {
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `${purpose} ${token}` });
    const callId = res.body.call_id as string;
    const active = await line.until(callId, (c) => c.status === 'human_active' || c.status === 'completed');
    expect(active.status).toBe('human_active');
    await whileHandedOver(callId);
    teamHangsUp();
    const done = await line.until(callId, (c) => c.result.state !== 'pending');
    expect(done).toMatchObject({ status: 'completed', outcome: 'caller_hangup' });
    expect(await line.said(callId)).toEqual([
      ['model', OPENING],
      ['user', script.heard[0]],
      ['model', CONNECTING],
    ]);
    return { callId, to, token };
  } finally {
    teamHangsUp();
    await collections(api.db).phoneNumbers.updateOne({ _id: numberId }, { $set: { team_line: null } });
  }
}
