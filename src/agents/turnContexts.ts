import type { ChatLine, ModelToolSpec } from './agentModel';
import type { AgentTool } from './agentTool';

/** What a turn's model calls are given beside the turn's own tool rounds, and the tools its tool runs pick from. */
export interface TurnContext {
  instructions: string;
  history: ChatLine[];
  turnLines: number;
  tools: ModelToolSpec[];
  runnable: AgentTool[];
}

/** Turns whose context one process keeps at once (a turn's is dropped at its last model call). */
const TURN_CONTEXTS_MAX = 500;

/**
 * A turn's context, read at its first model call and reused by the next ones in this process
 * (a turn with a tool call asks the model twice, about 300 ms apart): the instructions, the
 * conversation and the tools as the turn began, instead of four reads again; its tool runs
 * pick from the same list instead of listing the tools again. A step on
 * another process, or after a failed read, reads afresh.
 */
export class TurnContexts {
  private readonly entries = new Map<string, Promise<TurnContext>>();

  get(key: string, load: () => Promise<TurnContext>): Promise<TurnContext> {
    const kept = this.entries.get(key);
    if (kept) return kept;
    const loading = load();
    this.entries.set(key, loading);
    loading.catch(() => this.entries.delete(key));
    if (this.entries.size > TURN_CONTEXTS_MAX) this.entries.delete(this.entries.keys().next().value!);
    return loading;
  }

  /** The context a model call of the turn read in this process, if any. */
  peek(key: string): Promise<TurnContext> | undefined {
    return this.entries.get(key);
  }

  drop(key: string): void {
    this.entries.delete(key);
  }
}
