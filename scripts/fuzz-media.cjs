#!/usr/bin/env node
// The media-stream step of `npm run fuzz` (scripts/fuzz.sh): against the launched media
// process, opens streams for calls waiting for one (line calls of the demo workspace, seeded
// here as the Twilio adapter saves them) and sends each a bounded set of frames that break
// Twilio's protocol: random mutations of every message kind, random JSON, binary, oversized,
// out of order; and handshakes for calls that are not waiting. Each stream must be ended by the
// server with a close frame (or stay open, when a mutation happened to be valid); none may
// be dropped without one, and the process must answer /healthz throughout and at the end.
// Exits 1 on any failure. Uses the compiled modules (dist/).
//
//   MEDIA          the media process's origin (http://127.0.0.1:<MEDIA_PORT>)
//   MONGODB_URL, MONGODB_DB   the launched system's database
//   STREAMS        how many streams (default 40)
//   FUZZ_SEED      fixed seed, to repeat a run
'use strict';
const { randomBytes } = require('node:crypto');
const WebSocket = require('ws');
const { MongoClient } = require('mongodb');
const { saveLineCall } = require('../dist/src/calls/line/lineCalls.js');
const { callStreamUrl } = require('../dist/src/calls/line/streamUrl.js');

const MEDIA = process.env.MEDIA;
const STREAMS = Number(process.env.STREAMS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CONCURRENCY = 8;
/** A stream the server left open this long after its last frame took the frames as valid. */
const OPEN_GRACE_MS = 3_000;
/** Close codes of a server that ended a stream on purpose (1005: closed without a code). */
const CLEAN_CLOSES = new Set([1000, 1003, 1005, 1007, 1008, 1009]);
const say = (line) => process.stderr.write(`[fuzz] ${line}\n`);

let state = SEED >>> 0;
/** mulberry32: the run repeats with FUZZ_SEED. */
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (items) => items[Math.floor(random() * items.length)];
const int = (max) => Math.floor(random() * max);

const SID = 'MZ00000000000000000000000000000001';
function valid(kind, callId) {
  switch (kind) {
    case 'connected':
      return { event: 'connected', protocol: 'Call', version: '1.0.0' };
    case 'start':
      return {
        event: 'start',
        sequenceNumber: '1',
        streamSid: SID,
        start: { accountSid: 'AC0', streamSid: SID, callSid: 'CA0', tracks: ['inbound'], customParameters: { callId }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
      };
    case 'media':
      return { event: 'media', sequenceNumber: '2', streamSid: SID, media: { track: 'inbound', chunk: '1', timestamp: '20', payload: Buffer.alloc(160, 0xff).toString('base64') } };
    case 'mark':
      return { event: 'mark', sequenceNumber: '3', streamSid: SID, mark: { name: 'm1' } };
    case 'dtmf':
      return { event: 'dtmf', sequenceNumber: '4', streamSid: SID, dtmf: { track: 'inbound_track', digit: '5' } };
    default:
      return { event: 'stop', sequenceNumber: '5', streamSid: SID, stop: { accountSid: 'AC0', callSid: 'CA0' } };
  }
}
const KINDS = ['connected', 'start', 'media', 'mark', 'dtmf', 'stop'];

function randomValue(depth = 0) {
  switch (int(depth > 2 ? 6 : 9)) {
    case 0: return null;
    case 1: return random() * 1e6 - 5e5;
    case 2: return random() < 0.5;
    case 3: return randomBytes(int(24)).toString('latin1');
    case 4: return 'x'.repeat(int(5000));
    case 5: return String(int(1e9));
    case 6: return Array.from({ length: int(4) }, () => randomValue(depth + 1));
    case 7: return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(['event', 'streamSid', 'media', 'start', 'payload', 'name', randomBytes(3).toString('hex')]), randomValue(depth + 1)]));
    default: return { event: pick(KINDS), [pick(KINDS)]: randomValue(depth + 1) };
  }
}

/** Every object path of `value` (the message's fields and their fields). */
function paths(value, prefix = []) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.keys(value).flatMap((key) => [[...prefix, key], ...paths(value[key], [...prefix, key])]);
}

/** A message of `kind` with one field removed or given a random value, or its event changed. */
function mutated(kind, callId) {
  const message = valid(kind, callId);
  const path = pick(paths(message));
  let parent = message;
  for (const key of path.slice(0, -1)) parent = parent[key];
  const last = path[path.length - 1];
  if (random() < 0.3) delete parent[last];
  else parent[last] = randomValue();
  return JSON.stringify(message);
}

/** One hostile frame: [data, binary]. */
function hostileFrame(callId) {
  switch (int(10)) {
    case 0: return [randomBytes(1 + int(2000)), true];
    case 1: return [JSON.stringify({ event: 'media', pad: 'y'.repeat(65 * 1024 + int(16 * 1024)) }), false];
    case 2: return [pick(['null', '}{not json', '', '[]', '"start"', '42', 'true', '{"event":', randomBytes(40).toString('latin1')]), false];
    case 3: return [JSON.stringify(randomValue()), false];
    case 4: return [JSON.stringify(valid(pick(['media', 'mark', 'dtmf', 'stop']), callId)), false]; // out of order without a start
    case 5: return [JSON.stringify(valid('start', 'call_000000000000ffffffffffff')), false]; // another call
    default: return [mutated(pick(KINDS), callId), false];
  }
}

async function healthy() {
  try {
    return (await fetch(`${MEDIA}/healthz`, { signal: AbortSignal.timeout(5_000) })).status === 200;
  } catch {
    return false;
  }
}

/** Opens the call's stream, sends its frames, and tells how it ended. */
function runStream(callId, frames) {
  return new Promise((resolve) => {
    const socket = new WebSocket(callStreamUrl(`${MEDIA.replace(/^http/, 'ws')}/media-stream`, 'no-twilio', callId));
    let timer = null;
    const finish = (result) => {
      clearTimeout(timer);
      resolve(result);
    };
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (_req, res) => {
      socket.terminate();
      finish({ refused: res.statusCode });
    });
    socket.once('close', (code) => finish({ code }));
    socket.once('open', () => {
      for (const [data, binary] of frames) socket.send(data, { binary }, () => undefined);
      timer = setTimeout(() => {
        socket.terminate();
        finish({ open: true });
      }, OPEN_GRACE_MS);
    });
  });
}

/** A handshake that must be refused: an unknown call, or a path that is not a stream's. */
function refusedHandshake() {
  const path = pick([
    `/media-stream/call_${randomBytes(12).toString('hex')}/${randomBytes(32).toString('base64url').slice(0, 43)}`,
    `/media-stream/${randomBytes(8).toString('hex')}`,
    '/media-stream',
    `/media-stream/call_x/${'A'.repeat(43)}/extra`,
    `/${randomBytes(6).toString('hex')}`,
  ]);
  return new Promise((resolve) => {
    const socket = new WebSocket(`${MEDIA.replace(/^http/, 'ws')}${path}`);
    socket.on('error', (err) => resolve({ path, error: err.message }));
    socket.once('unexpected-response', (_req, res) => {
      socket.terminate();
      resolve({ path, status: res.statusCode });
    });
    socket.once('open', () => {
      socket.terminate();
      resolve({ path, status: 101 });
    });
  });
}

async function main() {
  say(`media streams against ${MEDIA}: ${STREAMS} streams of malformed frames (seed ${SEED})`);
  const mongo = await MongoClient.connect(process.env.MONGODB_URL);
  const failures = [];
  const tally = { closed: 0, open: 0 };
  try {
    const db = mongo.db(process.env.MONGODB_DB || 'orchestrator');
    const agent = await db.collection('agents').findOne({ tenant_id: 'ws_demo' });
    const number = await db.collection('phone_numbers').findOne({ tenant_id: 'ws_demo' });
    if (!agent || !number) throw new Error('the demo workspace has no agent or number');
    const stamp = Date.now().toString(16).padStart(12, '0');
    const calls = [];
    for (let i = 0; i < STREAMS; i++) {
      const callId = `call_${stamp}fuzz${i}`;
      calls.push(callId);
      await saveLineCall(db, {
        _id: callId,
        tenant_id: 'ws_demo',
        provider: 'twilio',
        provider_call_id: `CA${callId}`,
        recording: false,
        recording_uri: null,
        created_at: new Date(),
        request: {
          callId, tenantId: 'ws_demo', direction: 'outbound', to: '+919800000000', fromNumber: `+${String(number._id)}`, agentId: agent._id,
          ringSeconds: 30, opening: 'Hello', purpose: 'fuzz', script: null, detailLines: [], capture: null, requestedAt: new Date().toISOString(),
        },
      });
    }
    const plans = calls.map((callId) => {
      const prefix = random() < 0.5 ? [[JSON.stringify(valid('connected', callId)), false], [JSON.stringify(valid('start', callId)), false]] : [];
      return { callId, frames: [...prefix, ...Array.from({ length: 1 + int(3) }, () => hostileFrame(callId))] };
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < plans.length) {
          const plan = plans[next++];
          const result = await runStream(plan.callId, plan.frames);
          if (result.open) tally.open += 1;
          else if (result.refused !== undefined) failures.push(`${plan.callId}: a waiting call's stream was refused (${result.refused})`);
          else if (CLEAN_CLOSES.has(result.code)) tally.closed += 1;
          else failures.push(`${plan.callId}: the stream ended with ${result.code}, not a close frame of the server's (frames: ${plan.frames.map(([d, b]) => (b ? `<${d.length} binary bytes>` : String(d).slice(0, 80))).join(' | ')})`);
        }
      }),
    );
    // A second stream of a call that had one is refused before it opens.
    const again = await runStream(calls[0], []);
    if (again.refused !== 409) failures.push(`a second stream of ${calls[0]} was not refused 409: ${JSON.stringify(again)}`);
    for (let i = 0; i < 10; i++) {
      const result = await refusedHandshake();
      if (![403, 404, 409].includes(result.status)) failures.push(`handshake ${result.path}: ${JSON.stringify(result)}`);
    }
    if (!(await healthy())) failures.push('the media process does not answer /healthz after the run');
    const metrics = await fetch(`${MEDIA}/metrics`).then((res) => res.text()).catch(() => '');
    const violations = [...metrics.matchAll(/^media_stream_violations_total\{kind="([^"]+)"[^}]*\} (\d+)/gm)].map((m) => `${m[1]} ${m[2]}`);
    say(`media streams: ${tally.closed} closed by the server, ${tally.open} left open (frames that were valid), violations counted: ${violations.join(', ') || 'none'}`);
    if (violations.length === 0) failures.push('media_stream_violations_total counted nothing');
  } finally {
    await mongo.close();
  }
  for (const failure of failures) say(`media FAILURE: ${failure}`);
  if (failures.length) process.exit(1);
  say('media streams: no failures');
}

main().catch((err) => {
  say(`media fuzzing could not run: ${err.stack ?? err.message}`);
  process.exit(1);
});
