import { z } from 'zod';

/** Request and answer shapes of the console's agent inbox (docs/agents.md, "Hand-over"). */

export const inboxQuery = z.object({
  /** `waiting` for a person (no team reply yet), every conversation `held` by the team, or `all` (handed back ones too). */
  filter: z.enum(['waiting', 'held', 'all']).default('waiting'),
});

export const inboxItem = z.object({
  conversation_id: z.string(),
  sender_id: z.string(),
  customer_phone: z.string(),
  state: z.enum(['waiting', 'held', 'returned']),
  /** The reason the agent (or the team member who took it) gave. */
  reason: z.string(),
  member_name: z.string().nullable(),
  handed_over_at: z.string(),
  handed_back_at: z.string().nullable(),
  updated_at: z.string(),
});

const memberName = z.string().trim().min(1).max(80);

export const takeBody = z.object({ member_name: memberName, reason: z.string().trim().min(1).max(500).default('Taken by the team from the console.') }).strict();
export const handBackBody = z.object({ member_name: memberName }).strict();
export const teamReplyBody = z.object({ member_name: memberName, text: z.string().trim().min(1).max(4096) }).strict();

export const holderChanged = z.object({ conversation_id: z.string(), holder: z.enum(['team', 'agent']) });
export const teamReplySent = z.object({ conversation_id: z.string(), message_id: z.string() });
