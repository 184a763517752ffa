import type { Db } from 'mongodb';
import type { TranscriptTurn } from '../calls/types';
import { appendLineTurn, reviseLineTurn } from '../calls/line/lineTurns';
import type { TrailEntry } from '../agents';
import { MULAW_BYTES_PER_MS } from './agentPlayout';

interface OpenTurn {
  seq: number;
  role: TranscriptTurn['role'];
  at: Date;
}

/** What the caller heard of an agent turn: its audio played up to `playedMs` of `generatedMs`. */
interface Heard {
  playedMs: number;
  generatedMs: number;
}

/**
 * Both sides' turns of one call, stored as they complete. A turn takes its place (`seq`) when
 * it begins (the caller's speech starting, the agent's first audio playing) and is written
 * when its text is known (the transcription, the agent's transcript), which for the caller
 * can come after the agent has begun answering: the order is the order people spoke in.
 *
 * An agent turn the caller interrupted keeps only what was played: the SDK truncates the item
 * at the audio the caller heard (`conversation.item.truncate`, echoed by the model as
 * `conversation.item.truncated` with `audio_end_ms`), and the turn's text is cut to the same
 * share of its words (`heardText`), whether the transcript came before the cut (the model
 * writes faster than the line plays) or after. Writes are chained, so the call's last write is
 * awaited by `flush`.
 */
export class TurnLog {
  readonly #open = new Map<string, OpenTurn>();
  /** Agent items: audio the model generated for each (ms), from its audio deltas. */
  readonly #generatedMs = new Map<string, number>();
  /** Agent turns written, by item: their seq and full transcript, for a cut that comes later. */
  readonly #written = new Map<string, { seq: number; text: string }>();
  /** Cuts that came before their turn's transcript. */
  readonly #heard = new Map<string, Heard>();
  #nextSeq = 1;
  #lastAt: Date | undefined;
  #writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly call: { callId: string; tenantId: string },
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A turn began; `itemId` is the model's conversation item it will be transcribed under. */
  begin(itemId: string, role: TranscriptTurn['role'], at: Date): void {
    if (this.#open.has(itemId)) return;
    this.#open.set(itemId, { seq: this.#nextSeq++, role, at: this.#notBeforeLast(at) });
  }

  /** The model generated `bytes` of audio (8 kHz mu-law) for an agent item. */
  audioGenerated(itemId: string, bytes: number): void {
    this.#generatedMs.set(itemId, (this.#generatedMs.get(itemId) ?? 0) + bytes / MULAW_BYTES_PER_MS);
  }

  /** The turn's text is known; a turn never begun (no speech event seen) begins now. */
  complete(itemId: string, role: TranscriptTurn['role'], text: string, fallbackAt: Date): void {
    if (!this.#open.has(itemId)) this.begin(itemId, role, fallbackAt);
    const turn = this.#open.get(itemId)!;
    this.#open.delete(itemId);
    const full = text.trim();
    const heard = this.#heard.get(itemId);
    this.#heard.delete(itemId);
    const kept = heard ? heardText(full, heard) : full;
    if (role === 'model' && !heard) this.#written.set(itemId, { seq: turn.seq, text: full });
    if (!kept) return;
    const doc = { call_id: this.call.callId, tenant_id: this.call.tenantId, seq: turn.seq, role: turn.role, text: kept, at: turn.at };
    this.#chain(() => appendLineTurn(this.db, doc));
  }

  /**
   * The caller interrupted: the agent item's audio was cut at `playedMs` (the SDK's truncation
   * point). A turn already written is rewritten with what was heard (removed if nothing was).
   */
  truncated(itemId: string, playedMs: number): void {
    const heard = { playedMs, generatedMs: this.#generatedMs.get(itemId) ?? 0 };
    const written = this.#written.get(itemId);
    if (!written) {
      this.#heard.set(itemId, heard);
      return;
    }
    this.#written.delete(itemId);
    const kept = heardText(written.text, heard);
    if (kept === written.text) return;
    this.#chain(() => reviseLineTurn(this.db, this.call.callId, written.seq, kept || null));
  }

  /**
   * A row of the call's trail (a tool's lookup or run, a hold line) at `at`: it takes its
   * place among the turns now, so the call's conversation shows it where it happened.
   */
  trail(entry: TrailEntry, at: Date): void {
    const doc = {
      call_id: this.call.callId,
      tenant_id: this.call.tenantId,
      seq: this.#nextSeq++,
      role: 'model' as const,
      text: entry.text,
      at: this.#notBeforeLast(at),
      kind: 'trail' as const,
      trail: { kind: entry.kind, ...(entry.detail ? { detail: entry.detail } : {}) },
    };
    this.#chain(() => appendLineTurn(this.db, doc));
  }

  flush(): Promise<void> {
    return this.#writes;
  }

  /**
   * Turns take their places in the order they begin, but their times come from two clocks: the
   * caller's from the media stream's (when the speech began in the audio), the agent's from
   * this process's playout. Under load the two drift by a second or so, which would put a turn
   * before the one it follows; a turn's time is never earlier than the last one's.
   */
  #notBeforeLast(at: Date): Date {
    if (this.#lastAt && at < this.#lastAt) return this.#lastAt;
    this.#lastAt = at;
    return at;
  }

  #chain(write: () => Promise<void>): void {
    this.#writes = this.#writes.then(write).catch(this.onError);
  }
}

/**
 * The words of `text` the caller heard: the realtime API gives no transcript of a truncated
 * item (it deletes its own), so the text is cut at the played share of the item's audio, by
 * characters, back to a whole word, and ends with "…" to show the agent was cut off. Empty
 * when no whole word was played; the whole text when all of it was.
 */
export function heardText(text: string, heard: Heard): string {
  if (heard.generatedMs <= 0 || heard.playedMs >= heard.generatedMs) return text;
  const share = Math.max(0, heard.playedMs) / heard.generatedMs;
  const words = [...text.matchAll(/\S+/g)];
  const kept = words.filter((word) => word.index + word[0].length <= text.length * share);
  if (kept.length === words.length) return text;
  if (kept.length === 0) return '';
  const last = kept.at(-1)!;
  return `${text.slice(0, last.index + last[0].length).replace(/[\s,;:.!?—-]+$/u, '')}…`;
}
