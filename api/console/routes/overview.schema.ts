import { z } from 'zod';
import { CALL_OUTCOMES, CALL_STATUSES } from '../../../src/calls/types';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES } from '../../../src/campaigns/campaign';

const count = z.number().int();

/** Something an operator should look at, worded for them, with what it is about. */
export const attentionItem = z.object({
  /** A stable code for the kind of thing (tests, support): `campaign_failed`, `calls_not_placed`, `budget_nearly_used`, … */
  code: z.string(),
  severity: z.enum(['error', 'warning']),
  text: z.string(),
  /** What the item is about, for a link: a campaign, a call, or a page of the console. */
  about: z.object({ kind: z.enum(['campaign', 'call', 'calls', 'conversations', 'workspace']), id: z.string().nullable() }),
});

/** GET …/overview: the workspace's day at a glance (the web console's first page). */
export const overviewRecord = z.object({
  generated_at: z.string(),
  time_zone: z.string(),
  /** Today in the workspace's zone: its date and the instant it began. */
  today: z.object({ date: z.string(), since: z.string() }),
  /** Calls that ended today (src/calls/callTally.ts: counted once each as they end), and those on the line now. */
  calls: z.object({
    ended: count,
    answered: count,
    live: count,
    by_status: z.partialRecord(z.enum(CALL_STATUSES), count),
    by_outcome: z.partialRecord(z.enum(CALL_OUTCOMES), count),
    connected_seconds: count,
    /** Calls ended in each hour of today, 0 to 23 on the workspace's clock. */
    by_hour: z.array(count),
    /** The last few to end, newest first, each with who it was with. */
    recent: z.array(
      z.object({
        call_id: z.string(),
        person_name: z.string().nullable(),
        to: z.string(),
        purpose: z.string().nullable(),
        status: z.enum(CALL_STATUSES),
        outcome: z.enum(CALL_OUTCOMES).nullable(),
        duration_seconds: z.number().nullable(),
      }),
    ),
  }),
  messages: z.object({
    /** WhatsApp messages sent today by their latest status, up to `cap`. */
    total: count,
    capped: z.boolean(),
    cap: count,
    by_status: z.object({ sent: count, delivered: count, read: count, failed: count }),
  }),
  campaigns: z.array(
    z.object({
      campaign_id: z.string(),
      name: z.string(),
      channel: z.enum(CAMPAIGN_CHANNELS),
      status: z.enum(CAMPAIGN_STATUSES),
      recipients: count,
      /** Everyone no longer queued. */
      reached: count,
      failed: count,
    }),
  ),
  /** The daily outbound call budget (api-core §8): the UTC day, reset at 00:00 UTC. */
  budget: z.object({
    utc_day: z.string(),
    resets_at: z.string(),
    calls_used: count,
    calls_limit: count,
    minutes_reserved: count,
    minutes_limit: count,
    /** Whether the workspace's campaign calls count against it (by default they do not). */
    campaign_calls_count: z.boolean(),
  }),
  /** The plan's allowances as they stand. */
  plan: z.object({
    conversations_used: count,
    conversations_included: count,
    prepaid_credits: count,
    voice_minutes_used: count,
    voice_minutes_included: count,
    voice_credits: count,
  }),
  attention: z.array(attentionItem),
});
export type Overview = z.infer<typeof overviewRecord>;
export type AttentionItem = z.infer<typeof attentionItem>;
