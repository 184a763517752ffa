import type { Db } from 'mongodb';
import { callCollections } from '../src/calls/callStore';
import { COUNTER_NAMES, campaignCollections, type CampaignCounters } from '../src/campaigns/campaign';
import { campaignCounts } from '../src/campaigns/progress';
import { readRecipientBatch } from '../src/campaigns/staging';
import { collections, type WorkspaceDoc } from '../src/db/collections';
import { outboundMessagesCollection } from '../src/messaging/outboundMessages';

/**
 * The exact checks of `npm run cluster:kill` (bench/clusterKill.ts), read straight from the
 * store once the work is over: what was done (messages accepted, call minutes talked) against
 * what was counted and billed for it. Each check is a line `ok|FAILED <what>: <figures>`.
 */

export interface Check {
  ok: boolean;
  line: string;
}

const check = (ok: boolean, what: string, figures: string): Check => ({ ok, line: `${ok ? 'ok' : 'FAILED'} ${what}: ${figures}` });
const digits = (phone: string) => phone.replace(/\D/g, '');

type Plan = WorkspaceDoc['plan'];

export async function planOf(db: Db, tenantId: string): Promise<Plan> {
  return (await collections(db).workspaces.findOne({ _id: tenantId }))!.plan;
}

/**
 * A WhatsApp campaign run to its end: every person sent exactly once (one accepted message per
 * audience phone, each staged recipient pointing at one of them), the campaign's counters the
 * funnel of those messages' statuses (docs/decisions/campaigns.md "Campaign counters are a
 * funnel"), and the plan's billable conversations moved by exactly the template sends billed.
 */
export async function campaignChecks(db: Db, input: { tenantId: string; campaignId: string; phones: string[]; planBefore: Plan }): Promise<Check[]> {
  const { tenantId, campaignId, phones, planBefore } = input;
  const messages = await outboundMessagesCollection(db)
    .find({ tenant_id: tenantId }, { projection: { to: 1, status: 1, billed: 1 } })
    .toArray();
  const perPerson = new Map<string, number>();
  for (const m of messages) perPerson.set(digits(m.to), (perPerson.get(digits(m.to)) ?? 0) + 1);
  const audience = new Set(phones.map(digits));
  const twice = [...perPerson.values()].filter((n) => n > 1).length;
  const outside = [...perPerson.keys()].filter((p) => !audience.has(p)).length;
  const missed = [...audience].filter((p) => !perPerson.has(p)).length;

  const staged: string[] = [];
  for (let from = 0; from < phones.length; from += 500) {
    for (const r of await readRecipientBatch(db, campaignId, from, Math.min(500, phones.length - from))) if (r.message_id) staged.push(r.message_id);
  }
  const ids = new Set(messages.map((m) => m._id));
  const stagedKnown = staged.filter((id) => ids.has(id)).length;

  const campaign = (await campaignCollections(db).campaigns.findOne({ _id: campaignId }))!;
  // As the routes answer them (the campaign record's own copy is only the launch's zeros).
  const { counters, states } = await campaignCounts(db, campaign);
  const expected = funnelOf(messages);
  const billed = messages.filter((m) => m.billed !== null).length;
  const plan = await planOf(db, tenantId);
  const spent = plan.conversations_used - planBefore.conversations_used + (planBefore.prepaid_credits - plan.prepaid_credits);
  return [
    check(campaign.status === 'completed' && campaign.recipients === phones.length, 'campaign ran to its end', `status ${campaign.status}, ${campaign.recipients} recipients of ${phones.length}`),
    check(
      messages.length === phones.length && twice === 0 && outside === 0 && missed === 0,
      'every person sent exactly once',
      `${messages.length} messages to ${perPerson.size} people of ${phones.length}; ${twice} sent more than once, ${missed} never, ${outside} outside the audience`,
    ),
    check(staged.length === phones.length && stagedKnown === staged.length, 'each recipient points at its message', `${staged.length} recipients with a message id, ${stagedKnown} of them stored`),
    check(
      sameCounters(counters, expected) && (states.queued ?? 0) === 0,
      'campaign counters exact',
      `counted ${JSON.stringify(counters)} (states ${JSON.stringify(states)}), from the messages ${JSON.stringify(expected)}`,
    ),
    check(billed === messages.length && spent === billed, 'billable conversations exact', `${billed} template sends billed, the plan spent ${spent} (used ${planBefore.conversations_used} → ${plan.conversations_used}, credits ${planBefore.prepaid_credits} → ${plan.prepaid_credits})`),
  ];
}

/** The counters a campaign's messages call for: the funnel of their statuses; nothing is skipped in this run. */
function funnelOf(messages: { status: string }[]): CampaignCounters {
  const count = (pred: (status: string) => boolean) => messages.filter((m) => pred(m.status)).length;
  return {
    sent: messages.length,
    delivered: count((s) => s === 'delivered' || s === 'read'),
    read: count((s) => s === 'read'),
    failed: count((s) => s === 'failed'),
    skipped: 0,
  };
}

const sameCounters = (a: CampaignCounters, b: CampaignCounters) => COUNTER_NAMES.every((name) => a[name] === b[name]);

/** Whether the campaign's recount has caught up with its messages' statuses (it runs a little after they land). */
export async function campaignCountersSettled(db: Db, tenantId: string, campaignId: string): Promise<boolean> {
  const messages = await outboundMessagesCollection(db).find({ tenant_id: tenantId }, { projection: { status: 1 } }).toArray();
  const campaign = await campaignCollections(db).campaigns.findOne({ _id: campaignId });
  return campaign !== null && sameCounters((await campaignCounts(db, campaign)).counters, funnelOf(messages));
}

/**
 * Calls' minutes: each ended call billed its started minutes once (src/calls/billing.ts: one
 * `|billed` claim, `billed_minutes` = ⌈duration / 60⌉), and each workspace's plan moved by
 * exactly the sum (included minutes first, then credits).
 */
export async function callBillingChecks(db: Db, workspaces: { tenantId: string; callIds: string[]; planBefore: Plan }[]): Promise<Check[]> {
  const { calls, effects } = callCollections(db);
  const out: Check[] = [];
  for (const { tenantId, callIds, planBefore } of workspaces) {
    const docs = await calls.find({ _id: { $in: callIds } }, { projection: { duration_seconds: 1, billed_minutes: 1 } }).toArray();
    const claims = new Set((await effects.find({ _id: { $in: callIds.map((id) => `${id}|billed`) } }, { projection: { _id: 1 } }).toArray()).map((e) => e._id));
    let wrong = 0;
    let minutes = 0;
    for (const call of docs) {
      const due = Math.ceil((call.duration_seconds ?? 0) / 60);
      const billed = call.billed_minutes ?? 0;
      if (billed !== due || claims.has(`${call._id}|billed`) !== due > 0) wrong += 1;
      minutes += billed;
    }
    const plan = await planOf(db, tenantId);
    const used = plan.voice_minutes_used - planBefore.voice_minutes_used;
    const fromCredits = planBefore.voice_credits - plan.voice_credits;
    const expectedCredits = Math.max(0, minutes - Math.max(0, planBefore.voice_minutes_included - planBefore.voice_minutes_used));
    out.push(
      check(
        docs.length === callIds.length && wrong === 0 && used === minutes && fromCredits === expectedCredits,
        `call minutes billed exactly (${tenantId})`,
        `${docs.length} calls, ${minutes} minutes billed for ${docs.reduce((s, c) => s + (c.duration_seconds ?? 0), 0)} s talked, ${wrong} billed wrong; the plan's minutes used moved ${used}, its credits ${fromCredits} (expected ${expectedCredits})`,
      ),
    );
  }
  return out;
}
