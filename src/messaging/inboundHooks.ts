import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { SenderDoc } from '../db/collections';

/**
 * What other features do when a customer's message has been recorded (the chat agent of the
 * sender answers it). The set is a dependency of the inbound path (`InboundDeps.inboundHooks`),
 * built once by the composition root (src/main/featureHooks.ts `FEATURE_HOOKS.inbound`), so
 * messaging names no agent and a caller without the hooks does not compile, as the call hooks
 * (src/calls/callHooks.ts) do for calls.
 */

/** One customer message, recorded in its conversation (a redelivery is told again: hooks are idempotent). */
export interface InboundReceived {
  tenantId: string;
  senderId: string;
  conversationId: string;
  /** Our transcript message id (`msg_…`). */
  messageId: string;
  providerMessageId: string;
  /** `+` and digits. */
  customerPhone: string;
  text: string | null;
  at: Date;
  /** The message was STOP: nothing may be sent to the customer any more. */
  optedOut: boolean;
  /** The sender as the inbound path read it routing the message, when it did (a hook reads it otherwise). */
  sender?: SenderDoc;
}

/** What a hook is given: the process's database, and its Temporal client with the task queue. */
export interface InboundHookDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
}

export type InboundHook = (deps: InboundHookDeps, received: InboundReceived) => Promise<unknown>;

/** Every reaction to an inbound message; the list complete (empty says "none", not "forgotten"). */
export interface InboundHooks {
  received: readonly InboundHook[];
}

/**
 * Runs every hook in turn. A failure is the caller's: the webhook then answers 500 and the
 * provider delivers again (every step before is idempotent), so a reaction is never lost.
 */
export async function inboundReceived(hooks: InboundHooks, deps: InboundHookDeps, received: InboundReceived): Promise<void> {
  for (const hook of hooks.received) await hook(deps, received);
}
