import { recordTurn, type ConversationDeps, type RecordTurnInput } from '../conversations';

/**
 * A row of a conversation's internal trail (api-core §2: lookups, tool runs, hold lines):
 * stored as a `trail` turn, never shown in the public transcript nor counted, shown in the
 * console. Keyed, so a retried step records it once.
 */
export interface TrailRow {
  tenantId: string;
  customerPhone: string;
  text: string;
  dedupeKey: string;
  at: Date;
  role?: 'model' | 'human';
}

/** The turn a trail row is stored as (alone, or with others of the conversation in one write). */
export function trailTurn(row: TrailRow): RecordTurnInput {
  return {
    tenantId: row.tenantId,
    channel: 'whatsapp',
    customer: { phone: row.customerPhone },
    role: row.role ?? 'model',
    kind: 'trail',
    text: row.text,
    at: row.at,
    dedupeKey: `agent-trail:${row.dedupeKey}`,
  };
}

export async function recordTrail(deps: ConversationDeps, row: TrailRow): Promise<void> {
  await recordTurn(deps, trailTurn(row));
}
