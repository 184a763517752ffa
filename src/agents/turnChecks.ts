import type { SenderDoc } from '../db/collections';

/** What a turn's first step read and found open: the sender, and until when the 24-hour window is open. */
export interface TurnChecked {
  sender: SenderDoc;
  windowOpenUntil: Date;
}

/** Turns whose checks one process keeps at once (a turn's are taken by its reply, about a second later). */
const TURN_CHECKS_MAX = 1_000;

/**
 * The checks of the turns this process began, kept for their replies' sends, which then read
 * the opt-out only (src/messaging/sendMessage.ts `checked`). A reply sent by another process
 * (a worker that died mid-turn) finds none and its send reads everything, as any send does.
 */
export class TurnChecks {
  private readonly entries = new Map<string, TurnChecked>();

  remember(key: string, checked: TurnChecked): void {
    this.entries.delete(key);
    this.entries.set(key, checked);
    if (this.entries.size > TURN_CHECKS_MAX) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The turn's checks, if this process began it; kept for a retried send of the same turn. */
  peek(key: string): TurnChecked | undefined {
    return this.entries.get(key);
  }

  drop(key: string): void {
    this.entries.delete(key);
  }
}
