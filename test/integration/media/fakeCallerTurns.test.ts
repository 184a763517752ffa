import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket as WsClient, WebSocketServer, type WebSocket } from 'ws';
import { messageText } from '../../../src/calls/line/streamFrames';
import { PlivoStreamClient } from '../../support/plivoStreamClient';
import { FRAME_BYTES } from '../../support/speechAudio';

/**
 * The line tests' fake caller waits for the agent's turn to end before speaking
 * (`agentFinished`, test/support/agentQuiet.ts). It shares its process with the bridge and the
 * fake model: when that process stalls (a loaded machine), the agent's next frames are held back
 * while the clock runs on. plivoLine's inbound call once lost its greeting so: the caller took
 * the stall for the end of the greeting, talked over it, and the bridge kept what had been
 * heard, nothing.
 */

const FRAMES = 100;

async function listening(wss: WebSocketServer, http: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/`,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A model that, once connected, speaks a 2 s turn in real time, catching up after a stall as the fake realtime model does. */
async function speakingModel(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (socket: WebSocket) => {
    const began = performance.now();
    let sent = 0;
    const pace = () => {
      const due = Math.min(FRAMES, Math.floor((performance.now() - began) / 20) + 1);
      for (; sent < due; sent++) socket.send(Buffer.alloc(FRAME_BYTES, 0x20).toString('base64'));
      if (sent < FRAMES) setTimeout(pace, Math.max(1, began + sent * 20 - performance.now()));
    };
    pace();
  });
  return listening(wss, http);
}

/** The bridge between them, as the media process is: each of the model's frames relayed to the caller as Plivo's `playAudio`. */
async function relayingBridge(modelUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (caller: WebSocket) => {
    caller.once('message', () => {
      const model = new WsClient(modelUrl);
      model.on('message', (payload) => caller.send(JSON.stringify({ event: 'playAudio', media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload: messageText(payload) } })));
      caller.once('close', () => model.terminate());
    });
  });
  return listening(wss, http);
}

describe('the fake caller on a line test', () => {
  it('waits out a stall of its process in the middle of the agent’s turn: it hears the whole turn before it speaks', async () => {
    const model = await speakingModel();
    const bridge = await relayingBridge(model.url);
    const stream = await PlivoStreamClient.connect(bridge.url, { callUuid: 'a-call', accountId: 'MA0000', extraHeaders: '' });
    try {
      // The whole process stops for 800 ms once the turn's tenth frame is in.
      const stall = setInterval(() => {
        if (stream.received.frames.length < 10) return;
        clearInterval(stall);
        const end = Date.now() + 800;
        while (Date.now() < end);
      }, 5);
      await stream.agentFinished();
      clearInterval(stall);
      expect(stream.received.frames).toHaveLength(FRAMES);
    } finally {
      await stream.drop();
      await bridge.close();
      await model.close();
    }
  });
});
