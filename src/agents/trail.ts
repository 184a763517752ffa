import { recordTurn, type ConversationDeps } from '../conversations';

/**
 * A row of a conversation's internal trail (api-core §2: lookups, tool runs, hold lines):
 * stored as a `trail` turn, never shown in the public transcript nor counted, shown in the
 * console. Keyed, so a retried step records it once.
 */
export async function recordTrail(
  deps: ConversationDeps,
  row: { tenantId: string; customerPhone: string; text: string; dedupeKey: string; at: Date; role?: 'model' | 'human' },
): Promise<void> {
  await recordTurn(deps, {
    tenantId: row.tenantId,
    channel: 'whatsapp',
    customer: { phone: row.customerPhone },
    role: row.role ?? 'model',
    kind: 'trail',
    text: row.text,
    at: row.at,
    dedupeKey: `agent-trail:${row.dedupeKey}`,
  });
}
