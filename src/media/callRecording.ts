import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { MULAW_BYTES_PER_MS } from './agentPlayout';

const MULAW_SILENCE = 0xff;
const GROW_BYTES = 8 * 60 * 1000; // a minute of one channel

/** One side of the call: mu-law bytes at their place on the call's clock, silence between. */
class Channel {
  #bytes = Buffer.alloc(0);
  #length = 0;

  write(offset: number, audio: Uint8Array): void {
    if (offset < 0) return;
    const end = offset + audio.byteLength;
    if (end > this.#bytes.length) {
      const grown = Buffer.alloc(Math.max(end, this.#bytes.length + GROW_BYTES), MULAW_SILENCE);
      this.#bytes.copy(grown, 0, 0, this.#length);
      this.#bytes = grown;
    }
    this.#bytes.set(audio, offset);
    this.#length = Math.max(this.#length, end);
  }

  /** Drops what was placed after `offset` (agent audio the line never played). */
  truncate(offset: number): void {
    if (offset >= this.#length) return;
    this.#bytes.fill(MULAW_SILENCE, Math.max(0, offset), this.#length);
    this.#length = Math.max(0, offset);
  }

  get length(): number {
    return this.#length;
  }

  at(index: number): number {
    return index < this.#length ? this.#bytes[index]! : MULAW_SILENCE;
  }
}

/**
 * Both sides of a call as one stereo 8 kHz mu-law WAV: the caller on the left, the agent on
 * the right, each at its place on the call's clock (ms from the stream's start), so the file
 * plays back as the call sounded. Held in memory (8 KB a second a side) and written once.
 */
export class CallRecording {
  readonly #caller = new Channel();
  readonly #agent = new Channel();

  constructor(private readonly startedAtMs: number) {}

  #offset(atMs: number): number {
    return Math.round((atMs - this.startedAtMs) * MULAW_BYTES_PER_MS);
  }

  /** Caller audio; `streamMs` is the media message's own timestamp (ms since the stream began). */
  caller(audio: Uint8Array, streamMs: number): void {
    this.#caller.write(Math.round(streamMs * MULAW_BYTES_PER_MS), audio);
  }

  /** Agent audio that starts playing at `atMs` (epoch ms, from AgentPlayout). */
  agent(audio: Uint8Array, atMs: number): void {
    this.#agent.write(this.#offset(atMs), audio);
  }

  /** The line cleared its buffer at `atMs`: the agent audio after it was never heard. */
  interrupted(atMs: number): void {
    this.#agent.truncate(this.#offset(atMs));
  }

  wav(): Buffer {
    const frames = Math.max(this.#caller.length, this.#agent.length);
    const header = Buffer.alloc(58);
    const data = frames * 2;
    header.write('RIFF', 0, 'ascii');
    header.writeUInt32LE(50 + data + (data % 2), 4);
    header.write('WAVE', 8, 'ascii');
    header.write('fmt ', 12, 'ascii');
    header.writeUInt32LE(18, 16);
    header.writeUInt16LE(7, 20); // WAVE_FORMAT_MULAW
    header.writeUInt16LE(2, 22); // channels
    header.writeUInt32LE(8000, 24);
    header.writeUInt32LE(16000, 28); // bytes a second
    header.writeUInt16LE(2, 32); // block align
    header.writeUInt16LE(8, 34); // bits a sample
    header.writeUInt16LE(0, 36); // no extra format bytes
    header.write('fact', 38, 'ascii');
    header.writeUInt32LE(4, 42);
    header.writeUInt32LE(frames, 46);
    header.write('data', 50, 'ascii');
    header.writeUInt32LE(data, 54);
    const body = Buffer.alloc(data + (data % 2));
    for (let i = 0; i < frames; i++) {
      body[2 * i] = this.#caller.at(i);
      body[2 * i + 1] = this.#agent.at(i);
    }
    return Buffer.concat([header, body]);
  }
}

/**
 * Where a call's recording is kept: `storage://recordings/<workspace>/<call>.wav`, a name for
 * the file in the deployment's storage, never a link anyone can play. Known before a byte is
 * recorded, so the bridge gives it to the call when recording starts (docs/decisions/calls.md,
 * "Recording reference given when recording starts").
 */
export function recordingReference(tenantId: string, callId: string): { uri: string; relative: string } {
  const relative = `${safeSegment(tenantId)}/${safeSegment(callId)}.wav`;
  return { uri: `storage://recordings/${relative}`, relative };
}

/**
 * Writes the recording under `dir` at its reference (recordingReference) and answers the
 * reference. Written to a temporary name and renamed, so a reader never sees half a file.
 */
export async function storeRecording(dir: string, tenantId: string, callId: string, wav: Buffer): Promise<string> {
  const { uri, relative } = recordingReference(tenantId, callId);
  const path = join(resolve(dir), relative);
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  await writeFile(partial, wav);
  await rename(partial, path);
  return uri;
}

/** Ids are ours (`ws_…`, `call_…`), but a path segment must never climb out of the directory. */
function safeSegment(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}
