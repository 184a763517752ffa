/** 8 kHz mu-law: 8 bytes (samples) a millisecond, the telephone line's media-stream audio. */
export const MULAW_BYTES_PER_MS = 8;

/**
 * Where the agent's audio is on the caller's line. The model sends audio faster than real
 * time and the line plays it in order, so a chunk starts when the one before it ends, or now if
 * the line was quiet; an interruption (the bridge sent `clear`) throws away what was not yet
 * played. Turn times, the recording, the idle timer and the wait before hanging up all read it.
 */
export class AgentPlayout {
  #endMs = 0;

  /** Places a chunk of `bytes` sent now; answers when it starts playing (epoch ms). */
  place(bytes: number, nowMs: number): number {
    const startMs = Math.max(nowMs, this.#endMs);
    this.#endMs = startMs + bytes / MULAW_BYTES_PER_MS;
    return startMs;
  }

  /** The line was told to clear its buffer: nothing plays after now. */
  interrupt(nowMs: number): void {
    this.#endMs = Math.min(this.#endMs, nowMs);
  }

  /** When the last audio sent ends playing (epoch ms; in the past when the agent is quiet). */
  get endMs(): number {
    return this.#endMs;
  }
}
