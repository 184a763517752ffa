import type { ConversationDeps } from '../conversations';
import type { HolderChange } from './contracts';
import { changeInboxEntry } from './inbox';
import { recordTrail } from './trail';

/** Event types of a conversation changing hands (docs/webhooks.md). */
export const HANDED_OVER_EVENT = 'conversation.handed_over';
export const HANDED_BACK_EVENT = 'conversation.handed_back';

/**
 * What the conversation's workflow decided about who answers, made visible: the inbox entry,
 * the trail's hold line, and `conversation.handed_over` / `conversation.handed_back` for the
 * business's own help desk. Keyed by the workflow and the change's time, so a retried step
 * writes and announces it once.
 */
export async function recordHolderChange(deps: ConversationDeps, change: HolderChange): Promise<void> {
  const at = new Date(change.at);
  const key = `${change.workflowId}:${change.to.by}:${at.getTime()}`;
  if (change.to.by === 'team') {
    await changeInboxEntry(deps.db, change.tenantId, change.conversationId, (current) =>
      current && current.state !== 'returned' && current.handed_over_at.getTime() === at.getTime()
        ? null
        : {
            conversation_id: change.conversationId,
            sender_id: change.senderId,
            customer_phone: change.customerPhone,
            state: 'waiting',
            reason: change.reason,
            member_name: change.memberName,
            handed_over_at: at,
            handed_back_at: null,
            updated_at: at,
          },
    );
    const by = change.memberName ? `${change.memberName} took the conversation` : 'Held for a person';
    await recordTrail(deps, { tenantId: change.tenantId, customerPhone: change.customerPhone, text: `${by}: ${change.reason}`, dedupeKey: key, at, role: change.memberName ? 'human' : 'model' });
  } else {
    await changeInboxEntry(deps.db, change.tenantId, change.conversationId, (current) =>
      !current || current.state === 'returned' ? null : { ...current, state: 'returned', member_name: change.memberName ?? current.member_name, handed_back_at: at, updated_at: at },
    );
    await recordTrail(deps, { tenantId: change.tenantId, customerPhone: change.customerPhone, text: `Back with the agent: ${change.reason}`, dedupeKey: key, at, role: change.memberName ? 'human' : 'model' });
  }
  await deps.events.publish({
    tenantId: change.tenantId,
    type: change.to.by === 'team' ? HANDED_OVER_EVENT : HANDED_BACK_EVENT,
    dedupeKey: `${change.to.by === 'team' ? HANDED_OVER_EVENT : HANDED_BACK_EVENT}:${key}`,
    createdAt: at,
    data: {
      conversation_id: change.conversationId,
      channel: 'whatsapp',
      sender_id: change.senderId,
      customer: { phone: change.customerPhone },
      reason: change.reason,
      member_name: change.memberName,
      ...(change.to.by === 'team' ? { handed_over_at: at.toISOString() } : { handed_back_at: at.toISOString() }),
    },
  });
}
