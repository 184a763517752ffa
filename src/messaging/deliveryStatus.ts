import type { Db } from 'mongodb';
import { bulkWriteInChunks } from '../db/bulkWrite';
import { findByIds } from '../db/findByIds';
import { FeatureHooksMissing } from '../domain/featureHooksMissing';
import { type EventInput, publishEach, type EventPublisher } from '../events';
import { STATUS_RANK, outboundMessagesCollection, type DeliveryStatus, type OutboundMessageDoc } from './outboundMessages';

/** One status the provider reported for a message, with its time. */
export interface StatusReport {
  status: DeliveryStatus;
  at: Date;
  /** Why a `failed` message failed, as the provider said. */
  error?: { code: number | null; title: string | null; message: string | null } | null;
}

export interface DeliveryStatusInput extends StatusReport {
  /** Null when only the provider's message id is known (a Cloud API webhook): looked up. */
  tenantId: string | null;
  messageId: string;
}

export interface DeliveryStatusesInput {
  /** Null when only the provider's message id is known: looked up. */
  tenantId: string | null;
  messageId: string;
  /** In the order they happened. */
  statuses: readonly StatusReport[];
}

/** A message's furthest reported status, for what follows the message (a campaign's recipient). */
export interface StatusReached {
  message: OutboundMessageDoc;
  report: StatusReport;
}

/** What a feature does when its messages' statuses arrive; it is given the messages' database. */
export type MessageStatusHook = (db: Db, reached: readonly StatusReached[]) => Promise<unknown>;

let statusHooks: readonly MessageStatusHook[] | null = null;

/**
 * Installs the features' reactions to message statuses, the complete list (the composition
 * roots do: src/main/featureHooks.ts), so messaging names no feature that sends through it.
 * Installing again replaces the list. Until installed, applying statuses refuses
 * (`FeatureHooksMissing`) rather than move messages while their campaign recipients stand still.
 */
export function installMessageStatusHooks(hooks: readonly MessageStatusHook[]): void {
  statusHooks = hooks;
}

export const messageStatusHooksInstalled = (): boolean => statusHooks !== null;

/**
 * A delivery status from the provider: recorded on the outbound message (moving forward
 * only) and emitted as `message.status`, keyed by the provider's message id, once per
 * message and status. Safe to repeat. Answers false for a message this service never sent.
 */
export async function applyDeliveryStatus(deps: { db: Db; events: EventPublisher }, input: DeliveryStatusInput): Promise<boolean> {
  const { tenantId, messageId, ...report } = input;
  return applyDeliveryStatuses(deps, { tenantId, messageId, statuses: [report] });
}

/**
 * The report that recording `reports` one after another, forward only, would leave last:
 * the furthest one beyond `from`, at its first time. Null when none moves past `from`.
 */
export function furthestReport(reports: readonly StatusReport[], from: number): StatusReport | null {
  let furthest: StatusReport | null = null;
  for (const report of reports) {
    if (STATUS_RANK[report.status] > (furthest ? STATUS_RANK[furthest.status] : from)) furthest = report;
  }
  return furthest;
}

/**
 * Several statuses of one message reported together (the simulator's steps due at the same
 * moment, a Cloud API webhook's one status): `applyStatusesOfMessages` for one message.
 */
export async function applyDeliveryStatuses(deps: { db: Db; events: EventPublisher }, input: DeliveryStatusesInput): Promise<boolean> {
  const [applied] = await applyStatusesOfMessages(deps, [input]);
  return applied!;
}

/**
 * The statuses of several messages reported together (the simulator's messages whose
 * statuses fall due at the same moment): the messages are read in one `_id $in`; each message
 * is written once, with its furthest status, which is what recording its statuses one at a
 * time would leave (all messages in ordered bulk writes, `bulkWriteInChunks`); the registered
 * hooks are given each message's furthest status once (a campaign's recipients move forward
 * in unordered bulk writes); then one `message.status` event per message and status, in
 * the inputs' order and each message's statuses' order, each with its own time (one bulk
 * publish). The events come after the writes: a process dying between them leaves the
 * events to a repeat, which rewrites nothing and stores each event once. Answers, per input,
 * false for a message this service never sent (or another tenant's).
 */
export async function applyStatusesOfMessages(deps: { db: Db; events: EventPublisher }, inputs: readonly DeliveryStatusesInput[]): Promise<boolean[]> {
  // Checked before any write: a process without the hooks must not record statuses their followers miss.
  if (!statusHooks) throw new FeatureHooksMissing('message status');
  const hooks = statusHooks;
  const messages = outboundMessagesCollection(deps.db);
  const found = new Map((await findByIds(messages, inputs.map((input) => input.messageId))).map((message) => [message._id, message]));
  const messageWrites: { id: string; report: StatusReport }[] = [];
  const reached: StatusReached[] = [];
  const events: EventInput[] = [];
  const applied = inputs.map((input) => {
    const message = found.get(input.messageId);
    const tenantId = message?.tenant_id ?? input.tenantId;
    if (!tenantId || (message && input.tenantId && message.tenant_id !== input.tenantId)) return false;
    const onMessage = message ? furthestReport(input.statuses, STATUS_RANK[message.status]) : null;
    if (message && onMessage) {
      messageWrites.push({ id: message._id, report: onMessage });
      // A later input for the same message compares with what this one writes.
      found.set(message._id, { ...message, status: onMessage.status, status_at: onMessage.at });
    }
    // What follows the message (a campaign's recipient, forward only) is told the furthest
    // reported status even when the message was already there: a campaign run records its
    // batch's sends after the batch, so a status may reach the recipient first.
    const furthest = furthestReport(input.statuses, 0);
    if (message && furthest) reached.push({ message, report: furthest });
    for (const report of input.statuses) events.push(statusEvent(tenantId, input.messageId, message ?? null, report));
    return true;
  });
  await bulkWriteInChunks(
    messages,
    messageWrites.map(({ id, report }) => ({ updateOne: { filter: { _id: id }, update: { $set: { status: report.status, status_at: report.at } } } })),
    // In order: two writes of one message (the same message twice in `inputs`) land as computed.
    { ordered: true },
  );
  for (const hook of hooks) await hook(deps.db, reached);
  await publishEach(deps.events, events);
  return applied;
}

function statusEvent(tenantId: string, messageId: string, message: OutboundMessageDoc | null, report: StatusReport): EventInput {
  return {
    tenantId,
    type: 'message.status',
    dedupeKey: `message.status:${messageId}:${report.status}`,
    createdAt: report.at,
    data: {
      message_id: messageId,
      status: report.status,
      channel: 'whatsapp',
      to: message?.to ?? null,
      conversation_id: message?.conversation_id ?? null,
      campaign_id: message?.campaign_id ?? null,
      status_at: report.at.toISOString(),
      error: report.error ?? null,
    },
  };
}
