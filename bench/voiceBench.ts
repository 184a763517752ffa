import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from 'mongodb';
import { startProcess, untilReady, type ManagedProcess } from '../src/local/childProcess';
import { freePort, waitFor } from '../src/local/net';
import { fromRoot } from '../src/local/paths';
import { OUTBOUND_OPENING } from '../src/calls/opening';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { saveLineCall } from '../src/calls/line/lineCalls';
import { callStreamUrl } from '../src/calls/line/streamUrl';
import { startFakeRealtime, type FakeModelSession } from '../test/support/fakeRealtime';
import { MediaStreamClient } from '../test/support/mediaStreamClient';
import { FRAME_BYTES, speechMulaw } from '../test/support/speechAudio';
import { cpuSeconds, distribution, formatDistribution, loadAverage, machineBusySeconds, sleep, type Distribution } from './benchStats';
import { formatProfile, summariseProfiles } from './cpuProfileSummary';
import { startEmbeddedSystem } from './embeddedSystem';
import { VOICE_TARGETS } from './targets';

/**
 * `npm run bench:voice`: how many simultaneous live calls one media process (dist/src/main/media.js)
 * bridges in real time. Each call is a Twilio media stream from this process (real speech,
 * 20 ms mu-law frames at real-time pace, all the time) and a realtime session on the fake
 * model in this process, which talks back the whole time (20 ms frames at real-time pace), so
 * audio flows both ways at once. Every frame carries its number in its first 4 bytes, and is
 * timed from the moment it is sent to the moment it comes out of the bridge on the other side
 * (same clock): that is the latency the bridge adds, with the sockets and this process's own
 * lag in it. The number of calls steps up (VOICE_BENCH_STEPS, default 10,25,50,75,100) until a
 * step cannot hold its calls (a call getting under 90 % of its frames); the figure is the most
 * calls held with p99 < 20 ms both ways (bench/targets.ts). Each step measures
 * VOICE_BENCH_SECONDS (default 20) after a few seconds of warm-up. CPU per call-minute is the
 * media process's (VOICE_BENCH_CPU_PROF=1 profiles it and prints where its CPU went). Figures
 * go to .bench/voice-<time>.json.
 */

const STEPS = (process.env.VOICE_BENCH_STEPS ?? '10,25,50,75,100').split(',').map(Number);
const WINDOW_S = Number(process.env.VOICE_BENCH_SECONDS ?? 20);
const WARMUP_S = 4;
const API_KEY = 'sk-bench-realtime';
const NOT_STAMPED = 0xffffffff;
/** A frame that reached the other side with less than this share of the expected count was not held. */
const HELD_SHARE = 0.9;

/** `audio` repeated to `seconds`, each 20 ms frame numbered in its first 4 bytes. */
function stampedLoop(audio: Buffer, seconds: number): Buffer {
  const frames = Math.ceil((seconds * 8000) / FRAME_BYTES);
  const out = Buffer.alloc(frames * FRAME_BYTES);
  for (let i = 0; i < frames; i++) {
    const offset = (i * FRAME_BYTES) % (audio.length - FRAME_BYTES);
    audio.copy(out, i * FRAME_BYTES, offset, offset + FRAME_BYTES);
    out.writeUInt32LE(i, i * FRAME_BYTES);
  }
  return out;
}

interface StepResult {
  calls: number;
  held: number;
  inbound_ms: Distribution;
  outbound_ms: Distribution;
  added_p99_ms: number | null;
  frames_per_second: { inbound: number; outbound: number };
  media_cpu_ms_per_call_minute: number | null;
  media_cpu_share_of_core: number;
  bench_cpu_seconds: number;
  others_on_machine_cpu_seconds: number;
  media_event_loop_lag_p99_ms: number | null;
  seconds: number;
  load: string;
  met: boolean;
}

async function main(): Promise<void> {
  const startedLoad = loadAverage();
  const maxCalls = Math.max(...STEPS);
  const seconds = WARMUP_S + WINDOW_S + 6;
  const callerAudio = stampedLoop(speechMulaw('Yes, this is Asha. The delivery can come tomorrow morning, someone will be home all day.'), seconds);
  const agentAudio = stampedLoop(speechMulaw('Thank you. I have noted tomorrow morning for the delivery, and the driver will call before arriving.'), seconds);

  // Per call: when each numbered frame left its sender (epoch ms), and the latencies measured.
  const sentIn = new Map<string, Map<number, number>>();
  const sentOut = new Map<string, Map<number, number>>();
  const callOf = new Map<FakeModelSession, string>();
  let measuring = false;
  let inbound: number[] = [];
  let outbound: number[] = [];
  const sessionCall = (session: FakeModelSession) => {
    let callId = callOf.get(session);
    if (!callId) {
      callId = /bench-call (\S+)/.exec(session.instructions)?.[1] ?? '';
      callOf.set(session, callId);
    }
    return callId;
  };
  const model = await startFakeRealtime({
    apiKey: API_KEY,
    detectSpeech: false,
    scriptFor: () => ({ turns: [{ say: { audio: agentAudio, transcript: 'Thank you, noted.' } }], heard: [] }),
    onAppend: (session, audio, atMs) => {
      if (audio.length !== FRAME_BYTES) return; // the transport's silence padding
      const n = audio.readUInt32LE(0);
      const sent = sentIn.get(sessionCall(session));
      const at = sent?.get(n);
      if (at === undefined) return;
      sent!.delete(n);
      if (measuring) inbound.push(atMs - at);
    },
    onDelta: (session, audio, atMs) => {
      sentOut.get(sessionCall(session))?.set(audio.readUInt32LE(0), atMs);
    },
  });

  let media: ManagedProcess | null = null;
  mkdirSync(fromRoot('.bench'), { recursive: true });
  const system = await startEmbeddedSystem<{ tenantId: string; agentId: string; phoneNumber: string }>({
    name: 'voice-bench',
    parentDir: fromRoot('.bench'),
    api: false,
    seed: async (db) => {
      const demo = await seedDemoWorkspace(db, { workspaceId: 'ws_voicebench', name: 'Voice bench', environment: 'test' });
      return { tenantId: 'ws_voicebench', agentId: demo.agentId, phoneNumber: demo.phoneNumber };
    },
  });
  const results: StepResult[] = [];
  try {
    const mediaPort = await freePort();
    // VOICE_BENCH_CPU_PROF=1: where the media process's CPU goes, summarised at the end.
    const profileDir = process.env.VOICE_BENCH_CPU_PROF === '1' ? join(system.dir, 'media-profile') : null;
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    media = startProcess('media', process.execPath, [...profileArgs, join(__dirname, '../src/main/media.js')], {
      env: {
        ...system.env,
        MEDIA_PORT: String(mediaPort),
        REALTIME_URL: model.url,
        REALTIME_MODEL: 'fake-realtime',
        REALTIME_API_KEY: API_KEY,
        MEDIA_RECORDINGS_DIR: join(system.dir, 'recordings'),
      },
      logFile: join(system.dir, 'media.log'),
    });
    const mediaBase = `http://127.0.0.1:${mediaPort}`;
    await untilReady(media, waitFor('media', async () => (await fetch(`${mediaBase}/healthz`)).ok, 60_000, 250));
    const mediaPid = media.child.pid!;
    process.stdout.write(`[voice-bench] media process ready; ${STEPS.join(', ')} calls, ${WINDOW_S} s measured each (load ${loadAverage()})\n`);

    for (const calls of STEPS) {
      const callIds = await seedCalls(system.db, system.seeded, calls, results.length);
      const clients: MediaStreamClient[] = [];
      for (const callId of callIds) {
        sentIn.set(callId, new Map());
        sentOut.set(callId, new Map());
      }
      // Streams open over about a second, as calls would be answered.
      for (const callId of callIds) {
        const sent = sentIn.get(callId)!;
        const out = sentOut.get(callId)!;
        const client = await MediaStreamClient.connect(callStreamUrl(`ws://127.0.0.1:${mediaPort}/media-stream`, 'no-twilio', callId), { callId }, {
          onSend: (frame, atMs) => {
            const n = frame.readUInt32LE(0);
            if (n !== NOT_STAMPED) sent.set(n, atMs);
          },
          onAudio: (audio, atMs) => {
            const n = audio.readUInt32LE(0);
            const at = out.get(n);
            if (at === undefined) return;
            out.delete(n);
            if (measuring) outbound.push(atMs - at);
          },
        });
        void client.say(callerAudio);
        clients.push(client);
        await sleep(1000 / calls);
      }
      await sleep(WARMUP_S * 1000);
      const framesBefore = clients.map((c) => ({ sent: c.sent.length, heard: c.received.frames.length }));
      inbound = [];
      outbound = [];
      const cpu0 = { media: cpuSeconds(mediaPid), bench: process.cpuUsage(), machine: machineBusySeconds() };
      const t0 = Date.now();
      measuring = true;
      await sleep(WINDOW_S * 1000);
      measuring = false;
      const elapsed = (Date.now() - t0) / 1000;
      const benchUsage = process.cpuUsage(cpu0.bench);
      const mediaCpu = cpuSeconds(mediaPid) - cpu0.media;
      const benchCpu = (benchUsage.user + benchUsage.system) / 1e6;
      const machine = machineBusySeconds() - cpu0.machine;
      const expected = (elapsed * 1000) / 20;
      const held = clients.filter((c, i) => c.received.frames.length - framesBefore[i]!.heard >= HELD_SHARE * expected && c.open).length;
      const metrics = await (await fetch(`${mediaBase}/metrics`)).text();
      const lag = /nodejs_eventloop_lag_p99_seconds\{[^}]*\} ([\d.e-]+)/.exec(metrics);
      const inD = distribution(inbound);
      const outD = distribution(outbound);
      const addedP99 = inD.p99 === null || outD.p99 === null ? null : Math.max(inD.p99, outD.p99);
      const result: StepResult = {
        calls,
        held,
        inbound_ms: inD,
        outbound_ms: outD,
        added_p99_ms: addedP99,
        frames_per_second: { inbound: Math.round(inbound.length / elapsed), outbound: Math.round(outbound.length / elapsed) },
        media_cpu_ms_per_call_minute: calls > 0 ? Math.round((mediaCpu * 1000) / (calls * (elapsed / 60))) : null,
        media_cpu_share_of_core: Math.round((mediaCpu / elapsed) * 1000) / 1000,
        bench_cpu_seconds: Math.round(benchCpu * 10) / 10,
        others_on_machine_cpu_seconds: Math.round((machine - mediaCpu - benchCpu) * 10) / 10,
        media_event_loop_lag_p99_ms: lag ? Math.round(Number(lag[1]) * 10000) / 10 : null,
        seconds: Math.round(elapsed),
        load: loadAverage(),
        met: held === calls && addedP99 !== null && addedP99 < VOICE_TARGETS.p99AddedMs,
      };
      results.push(result);
      process.stdout.write(
        `[voice-bench] ${calls} calls: ${held} held; caller→model ${formatDistribution(inD)}; model→caller ${formatDistribution(outD)}; ` +
          `media CPU ${result.media_cpu_ms_per_call_minute} ms per call-minute (${(result.media_cpu_share_of_core * 100).toFixed(0)} % of a core), ` +
          `event-loop lag p99 ${result.media_event_loop_lag_p99_ms} ms; bench ${result.bench_cpu_seconds} CPU-s, others ${result.others_on_machine_cpu_seconds} CPU-s; load ${result.load} — ${result.met ? 'within target' : 'NOT within target'}\n`,
      );
      await Promise.all(clients.map((c) => c.stop()));
      await waitFor('sessions ended', async () => ((await (await fetch(`${mediaBase}/healthz`)).json()) as { sessions: number }).sessions === 0, 30_000, 250);
      for (const callId of callIds) {
        sentIn.delete(callId);
        sentOut.delete(callId);
      }
      // Latency on a shared machine comes and goes; a step that could not hold its calls ends the climb.
      if (held < calls) break;
    }
    await media.stop();
    if (profileDir) for (const summary of summariseProfiles(profileDir, null)) process.stdout.write(`${formatProfile('media', summary)}\n`);
  } finally {
    await media?.stop();
    await model.close();
    await system.stop();
  }

  const held = results.filter((r) => r.met).map((r) => r.calls);
  const most = held.length ? Math.max(...held) : 0;
  const figures = {
    settings: { steps: STEPS, window_seconds: WINDOW_S, warmup_seconds: WARMUP_S, target: VOICE_TARGETS },
    steps: results,
    most_calls_within_target: most,
    load_before: startedLoad,
    load_after: loadAverage(),
  };
  mkdirSync(fromRoot('.bench'), { recursive: true });
  const file = fromRoot(`.bench/voice-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(
    `\n[voice-bench] most simultaneous calls with p99 added latency < ${VOICE_TARGETS.p99AddedMs} ms both ways: ${most} ` +
      `(target ≥ ${VOICE_TARGETS.calls}: ${most >= VOICE_TARGETS.calls ? 'met' : 'NOT met'}); largest step tried ${maxCalls}; load before ${startedLoad}, after ${loadAverage()} (2 cores, shared)\n` +
      `[voice-bench] figures in ${file}\n`,
  );
}

/** `count` line calls of the bench workspace, as the telephony adapter would have saved them. */
async function seedCalls(db: Db, seeded: { tenantId: string; agentId: string; phoneNumber: string }, count: number, step: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const callId = `call_bench${step}x${i}`;
    ids.push(callId);
    await saveLineCall(db, {
      _id: callId,
      tenant_id: seeded.tenantId,
      provider: 'twilio',
      provider_call_id: `CA${callId}`,
      recording: false,
      recording_uri: null,
      created_at: new Date(),
      request: {
        callId,
        tenantId: seeded.tenantId,
        direction: 'outbound',
        to: `+9198111${String(70000 + i)}`,
        fromNumber: seeded.phoneNumber,
        agentId: seeded.agentId,
        ringSeconds: 30,
        opening: OUTBOUND_OPENING,
        purpose: `bench-call ${callId}`,
        script: null,
        detailLines: [],
        capture: null,
        requestedAt: new Date().toISOString(),
      },
    });
  }
  return ids;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
