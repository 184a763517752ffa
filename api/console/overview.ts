import type { Db } from 'mongodb';
import { dailyBudgetUsage, liveCallCount } from '../../src/calls/admission';
import { findCall, utcDay } from '../../src/calls/callStore';
import { callDayTally, workspaceDate } from '../../src/calls/callTally';
import type { WorkspaceDoc } from '../../src/db/collections';
import { LIMITS } from '../../src/domain/limits';
import { localTime, zonedHourStart } from '../../src/domain/sendWindow';
import { listCampaigns } from '../../src/campaigns/listing';
import { messageStatusesSince } from '../../src/messaging/outboundMessages';
import { callPersonNames } from './personNames';
import type { AttentionItem, Overview } from './routes/overview.schema';

/**
 * The console's overview (issue 35 §9): the workspace's day from counters, never a scan of the
 * calls (on FerretDB any filter but an `_id` scans every workspace's calls, transcripts and
 * all: 5 s for 6,000). The day's calls are their running tally (src/calls/callTally.ts) and
 * the budget its own (both a head and a few entries, by `_id`); the newest calls are read by
 * id; the plan counters come with the workspace; live calls are the workspace's ten places at
 * most; campaigns are the newest few with their counters (progress documents, by `_id`). The
 * one scan left (on FerretDB; MongoDB has `tenant_sent`) is of today's WhatsApp messages, small
 * documents projected to their status and capped. docs/console.md gives the figures measured with thousands of calls and messages.
 */

/** How many of the day's messages are counted at most; past that the page says "at least". */
export const OVERVIEW_DAY_CAP = 2_000;
/** Campaigns read (most recently changed first); those neither active nor finished today are left out. */
const CAMPAIGNS_READ = 20;
/** How many of the newest calls are listed by name. */
const RECENT_CALLS = 5;
/** The budget's share past which it is worth a warning. */
const BUDGET_WARNING_SHARE = 0.8;

/** Outcomes that mean the service could not place the call, not that the person did not answer. */
const NOT_PLACED = new Set(['setup_error', 'originate_error', 'suspended']);
const ACTIVE = new Set(['scheduled', 'running', 'paused']);

export async function workspaceOverview(db: Db, workspace: WorkspaceDoc, now: Date): Promise<Overview> {
  const tenantId = workspace._id;
  const since = dayStart(now, workspace.timezone);
  const budgetDay = utcDay(now);
  const [tally, statuses, live, budget, campaigns] = await Promise.all([
    callDayTally(db, tenantId, workspaceDate(now, workspace.timezone), RECENT_CALLS),
    messageStatusesSince(db, tenantId, since, OVERVIEW_DAY_CAP),
    liveCallCount(db, tenantId),
    dailyBudgetUsage(db, tenantId, budgetDay),
    listCampaigns(db, tenantId, { limit: CAMPAIGNS_READ }),
  ]);
  const recent = (await Promise.all(tally.newest.map((id) => findCall(db, tenantId, id)))).filter((c) => c !== null);
  const names = await callPersonNames(db, tenantId, workspace.country, recent);

  const messages = { sent: 0, delivered: 0, read: 0, failed: 0 };
  for (const status of statuses) messages[status] += 1;

  const shown = campaigns
    .filter((c) => ACTIVE.has(c.status) || (c.completed_at !== null && c.completed_at >= since))
    .map((c) => ({
      campaign_id: c._id,
      name: c.name,
      channel: c.channel,
      status: c.status,
      recipients: c.recipients,
      reached: Math.max(0, c.recipients - (c.states.queued ?? c.recipients)),
      failed: c.states.failed ?? 0,
    }));

  const overview: Overview = {
    generated_at: now.toISOString(),
    time_zone: workspace.timezone,
    today: { date: workspaceDate(now, workspace.timezone), since: since.toISOString() },
    calls: {
      ended: tally.ended,
      answered: tally.answered,
      live,
      by_status: tally.by_status,
      by_outcome: tally.by_outcome,
      connected_seconds: Math.round(tally.connected_seconds),
      by_hour: tally.by_hour,
      recent: recent.map((c) => ({
        call_id: c._id,
        person_name: names.get(c._id) ?? null,
        to: c.to,
        purpose: c.purpose,
        status: c.status,
        outcome: c.outcome,
        duration_seconds: c.duration_seconds,
      })),
    },
    messages: { total: statuses.length, capped: statuses.length >= OVERVIEW_DAY_CAP, cap: OVERVIEW_DAY_CAP, by_status: messages },
    campaigns: shown,
    budget: {
      utc_day: budgetDay,
      resets_at: new Date(Date.parse(`${budgetDay}T00:00:00Z`) + 86_400_000).toISOString(),
      calls_used: budget.calls,
      calls_limit: LIMITS.callsPerUtcDay,
      minutes_reserved: budget.minutes,
      minutes_limit: LIMITS.reservedMinutesPerUtcDay,
      campaign_calls_count: workspace.plan.campaign_calls_use_daily_budget === true,
    },
    plan: {
      conversations_used: workspace.plan.conversations_used,
      conversations_included: workspace.plan.conversations_included,
      prepaid_credits: workspace.plan.prepaid_credits,
      voice_minutes_used: workspace.plan.voice_minutes_used,
      voice_minutes_included: workspace.plan.voice_minutes_included,
      voice_credits: workspace.plan.voice_credits,
    },
    attention: [],
  };
  overview.attention = attentionOf(overview, workspace.suspended);
  return overview;
}

/**
 * What needs an operator, most severe first: each item says what happened and points at it.
 * Only what is theirs to act on: a failed or paused campaign, calls the service could not
 * place, failed messages, a budget or an allowance nearly or wholly used, a suspension.
 */
export function attentionOf(o: Overview, suspended: boolean): AttentionItem[] {
  const items: AttentionItem[] = [];
  if (suspended) items.push({ code: 'workspace_suspended', severity: 'error', text: 'The workspace is suspended: no call or message goes out until it is reinstated.', about: { kind: 'workspace', id: null } });
  for (const c of o.campaigns) {
    if (c.status === 'failed') items.push({ code: 'campaign_failed', severity: 'error', text: `Campaign “${c.name}” failed.`, about: { kind: 'campaign', id: c.campaign_id } });
    if (c.status === 'paused') items.push({ code: 'campaign_paused', severity: 'warning', text: `Campaign “${c.name}” is paused with ${c.recipients - c.reached} still to reach.`, about: { kind: 'campaign', id: c.campaign_id } });
  }
  const notPlaced = Object.entries(o.calls.by_outcome).reduce((n, [outcome, count]) => (NOT_PLACED.has(outcome) ? n + count : n), 0);
  if (notPlaced > 0) {
    items.push({
      code: 'calls_not_placed',
      severity: 'error',
      text: `${plural(notPlaced, 'call')} today could not be placed (a setup or network error on our side, not the person).`,
      about: { kind: 'calls', id: null },
    });
  }
  if (o.messages.by_status.failed > 0) {
    items.push({ code: 'messages_failed', severity: 'warning', text: `${plural(o.messages.by_status.failed, 'WhatsApp message')} sent today failed to deliver.`, about: { kind: 'conversations', id: null } });
  }
  const b = o.budget;
  const budgetShare = Math.max(b.calls_used / b.calls_limit, b.minutes_reserved / b.minutes_limit);
  if (budgetShare >= 1 || b.calls_used >= b.calls_limit) {
    items.push({ code: 'budget_used_up', severity: 'error', text: `Today's call budget is used up: new calls are refused until 00:00 UTC.`, about: { kind: 'workspace', id: null } });
  } else if (budgetShare >= BUDGET_WARNING_SHARE) {
    items.push({ code: 'budget_nearly_used', severity: 'warning', text: `${Math.round(budgetShare * 100)} % of today's call budget is used.`, about: { kind: 'workspace', id: null } });
  }
  const p = o.plan;
  if (p.conversations_used >= p.conversations_included && p.prepaid_credits < 1) {
    items.push({ code: 'allowance_exhausted', severity: 'error', text: 'The plan has no WhatsApp conversations left: template messages are refused until credits are added.', about: { kind: 'workspace', id: null } });
  }
  if (p.voice_minutes_used >= p.voice_minutes_included && p.voice_credits < 1 && p.voice_minutes_included > 0) {
    items.push({ code: 'voice_minutes_exhausted', severity: 'warning', text: "The plan's included voice minutes are used up.", about: { kind: 'workspace', id: null } });
  }
  return items.sort((a, z) => (a.severity === z.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** When today began in the zone. */
function dayStart(at: Date, timeZone: string): Date {
  const t = localTime(at, timeZone);
  return zonedHourStart({ year: t.year, month: t.month, day: t.day }, 0, timeZone);
}
