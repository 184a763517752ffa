import type { Db } from 'mongodb';
import { dailyBudgetUsage, liveCallCount } from '../../src/calls/admission';
import { callsCreatedSince, type CallOfTheDay } from '../../src/calls/callList';
import { utcDay } from '../../src/calls/callStore';
import type { WorkspaceDoc } from '../../src/db/collections';
import { LIMITS } from '../../src/domain/limits';
import { localTime, zonedHourStart } from '../../src/domain/sendWindow';
import { listCampaigns } from '../../src/campaigns/listing';
import { messageStatusesSince } from '../../src/messaging/outboundMessages';
import { callPersonNames } from './personNames';
import type { AttentionItem, Overview } from './routes/overview.schema';

/**
 * The console's overview (issue 35 §9): the workspace's day from what is already kept, each
 * read bounded. On FerretDB only `_id` equalities use an index, so: the budget is its running
 * totals (a head and a few entries, by `_id`); the plan counters come with the workspace;
 * live calls are the workspace's ten places at most; campaigns are the newest few with their
 * counters (their progress documents, by `_id`); and the day's calls and messages are one
 * bounded read each, projected to the few fields counted here. docs/console.md gives the
 * figure measured on a workspace with thousands of calls.
 */

/** How many of the day's calls, and of its messages, are counted at most; past that the page says "at least". */
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
  const [calls, statuses, live, budget, campaigns] = await Promise.all([
    callsCreatedSince(db, tenantId, since, OVERVIEW_DAY_CAP),
    messageStatusesSince(db, tenantId, since, OVERVIEW_DAY_CAP),
    liveCallCount(db, tenantId),
    dailyBudgetUsage(db, tenantId, budgetDay),
    listCampaigns(db, tenantId, { limit: CAMPAIGNS_READ }),
  ]);
  const recent = calls.slice(0, RECENT_CALLS);
  const names = await callPersonNames(db, tenantId, workspace.country, recent);

  const byStatus: Overview['calls']['by_status'] = {};
  const byOutcome: Overview['calls']['by_outcome'] = {};
  let connected = 0;
  const byHour = Array.from({ length: Math.max(1, Math.ceil((now.getTime() - since.getTime()) / HOUR_MS)) }, () => 0);
  for (const call of calls) {
    const hour = Math.floor((createdAtOfId(call._id) - since.getTime()) / HOUR_MS);
    if (hour >= 0 && hour < byHour.length) byHour[hour]! += 1;
    byStatus[call.status] = (byStatus[call.status] ?? 0) + 1;
    if (call.outcome) byOutcome[call.outcome] = (byOutcome[call.outcome] ?? 0) + 1;
    connected += call.duration_seconds ?? 0;
  }
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
    today: { date: localDate(now, workspace.timezone), since: since.toISOString() },
    calls: {
      total: calls.length,
      capped: calls.length >= OVERVIEW_DAY_CAP,
      cap: OVERVIEW_DAY_CAP,
      live,
      by_status: byStatus,
      by_outcome: byOutcome,
      connected_seconds: Math.round(connected),
      by_hour: byHour,
      recent: recent.map((c) => ({
        call_id: c._id,
        person_name: names.get(c._id) ?? null,
        to: c.to,
        purpose: c.purpose ?? null,
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
  overview.attention = attentionOf(overview, calls, workspace.suspended);
  return overview;
}

/**
 * What needs an operator, most severe first: each item says what happened and points at it.
 * Only what is theirs to act on: a failed or paused campaign, calls the service could not
 * place, failed messages, a budget or an allowance nearly or wholly used, a suspension.
 */
export function attentionOf(o: Overview, calls: Pick<CallOfTheDay, '_id' | 'outcome'>[], suspended: boolean): AttentionItem[] {
  const items: AttentionItem[] = [];
  if (suspended) items.push({ code: 'workspace_suspended', severity: 'error', text: 'The workspace is suspended: no call or message goes out until it is reinstated.', about: { kind: 'workspace', id: null } });
  for (const c of o.campaigns) {
    if (c.status === 'failed') items.push({ code: 'campaign_failed', severity: 'error', text: `Campaign “${c.name}” failed.`, about: { kind: 'campaign', id: c.campaign_id } });
    if (c.status === 'paused') items.push({ code: 'campaign_paused', severity: 'warning', text: `Campaign “${c.name}” is paused with ${c.recipients - c.reached} still to reach.`, about: { kind: 'campaign', id: c.campaign_id } });
  }
  const notPlaced = calls.filter((c) => c.outcome && NOT_PLACED.has(c.outcome));
  if (notPlaced.length > 0) {
    items.push({
      code: 'calls_not_placed',
      severity: 'error',
      text: `${plural(notPlaced.length, 'call')} today could not be placed (a setup or network error on our side, not the person).`,
      about: notPlaced.length === 1 ? { kind: 'call', id: notPlaced[0]!._id } : { kind: 'calls', id: null },
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

const HOUR_MS = 3_600_000;

/** When a call was created, from its id (src/domain/ids.ts: 12 hex digits of milliseconds after the prefix). */
function createdAtOfId(id: string): number {
  return parseInt(id.slice(id.indexOf('_') + 1, id.indexOf('_') + 13), 16);
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

function localDate(at: Date, timeZone: string): string {
  const t = localTime(at, timeZone);
  return `${t.year}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;
}

/** When today began in the zone. */
function dayStart(at: Date, timeZone: string): Date {
  const t = localTime(at, timeZone);
  return zonedHourStart({ year: t.year, month: t.month, day: t.day }, 0, timeZone);
}
