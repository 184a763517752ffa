import type { Db } from 'mongodb';
import type { TranscriptTurn } from '../calls/types';
import { appendLineTurn } from '../calls/line/lineTurns';

interface OpenTurn {
  seq: number;
  role: TranscriptTurn['role'];
  at: Date;
}

/**
 * Both sides' turns of one call, stored as they complete. A turn takes its place (`seq`) when
 * it begins (the caller's speech starting, the agent's first audio playing) and is written
 * when its text is known (the transcription, the agent's transcript), which for the caller
 * can come after the agent has begun answering: the order is the order people spoke in.
 * Writes are chained, so the call's last write is awaited by `flush`.
 */
export class TurnLog {
  readonly #open = new Map<string, OpenTurn>();
  #nextSeq = 1;
  #writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly call: { callId: string; tenantId: string },
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A turn began; `itemId` is the model's conversation item it will be transcribed under. */
  begin(itemId: string, role: TranscriptTurn['role'], at: Date): void {
    if (this.#open.has(itemId)) return;
    this.#open.set(itemId, { seq: this.#nextSeq++, role, at });
  }

  /** The turn's text is known; a turn never begun (no speech event seen) begins now. */
  complete(itemId: string, role: TranscriptTurn['role'], text: string, fallbackAt: Date): void {
    if (!this.#open.has(itemId)) this.begin(itemId, role, fallbackAt);
    const turn = this.#open.get(itemId)!;
    this.#open.delete(itemId);
    const trimmed = text.trim();
    if (!trimmed) return;
    const doc = { call_id: this.call.callId, tenant_id: this.call.tenantId, seq: turn.seq, role: turn.role, text: trimmed, at: turn.at };
    this.#writes = this.#writes.then(() => appendLineTurn(this.db, doc)).catch(this.onError);
  }

  flush(): Promise<void> {
    return this.#writes;
  }
}
