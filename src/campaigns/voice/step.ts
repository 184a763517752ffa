import { callCollections, type CallDoc, type CallRefusalReason, placeCall, placeCallDeps, type WorkerPlacingDeps } from '../../calls';
import { answersSoFar, callBackCapture, mergeCalls, mergeOutcome, owesCallBack, type RecipientCall } from './mergedOutcome';
import { findCampaign, type CampaignDoc } from '../campaign';
import { readVoiceReadiness } from './readiness';
import { chunkOf, recount } from '../progress';
import type { RecipientReason } from '../recipients';
import { recipientTimeZone } from './recipientZone';
import { isWindowOpen, nextOpenTime } from '../../domain/sendWindow';
import { callEntry, finishedCall, linkCall } from './rereadRefold';
import { recipientId, stagingCollections, type CampaignRecipientDoc } from '../staging';
import { CALL_BACK_DELAY_MS, CAMPAIGN_CALL_RING_SECONDS, type DueCallBack, type VoiceStepInput, type VoiceStepResult } from '../contracts';
import { collections, type WorkspaceDoc } from '../../db/collections';
import { newId } from '../../domain/ids';
import { FailureType, permanentFailure } from '../../temporal/failures';

export interface VoiceStepDeps extends WorkerPlacingDeps {
  now: () => Date;
}

/** What the step's runner (the activity) gives it: its waits and its progress reports. */
export interface StepRunner {
  /** Waits between a step's calls (the throttle's spacing); tests on the time-skipping server skip it. */
  pace(ms: number): Promise<void>;
  /** The position the step has just dealt with. */
  heartbeat(position: number): void;
}

/** Refusals that concern this person's number: the person fails with the reason; the others hold everyone. */
const PER_PERSON: ReadonlySet<CallRefusalReason> = new Set(['destination_too_short', 'destination_unusable', 'self_dial', 'destination_blocked', 'country_not_allowed']);

type Placed = { kind: 'placed' } | { kind: 'busy' } | { kind: 'hold'; reason: string } | { kind: 'refused'; reason: RecipientReason };

/**
 * One step of a call campaign's run (issue 15): fold the results of awaited calls into each
 * person's merged outcome (deciding their one call-back), then, inside the call window, place
 * calls, due call-backs first, through the place-call use case of POST /calls. Only the
 * campaign's run calls this, one step at a time, so each recipient has one writer. Safe to
 * retry: results already folded are not folded again (the recipient has no pending call),
 * calls already written are not placed again, and every time comes from the workflow.
 */
export function stepVoiceCampaign(deps: VoiceStepDeps, input: VoiceStepInput, runner: StepRunner): Promise<VoiceStepResult> {
  return voiceStep(deps, runner)(input);
}

function voiceStep(deps: VoiceStepDeps, runner: StepRunner): (input: VoiceStepInput) => Promise<VoiceStepResult> {
  const { now } = deps;
  const { recipients } = stagingCollections(deps.db);
  const { calls } = callCollections(deps.db);

  const readRecipient = (campaignId: string, position: number) => recipients.findOne({ _id: recipientId(campaignId, position) });

  /**
   * Folds the awaited call into the person's outcome once its result is in. Answers `awaiting`
   * while the call is live or unread, `missing` when the call was never written (its placing
   * died; it is placed again), else settled, with the call-back owed if any. Safe to repeat: a
   * settled recipient has no pending call, and a call-back it owes is answered again.
   */
  async function collect(campaign: CampaignDoc, position: number, at: Date): Promise<'awaiting' | 'missing' | { settled: true; callBack: DueCallBack | null }> {
    const doc = await readRecipient(campaign._id, position);
    if (!doc) return { settled: true, callBack: null };
    const pending = doc.call_pending;
    if (!pending) {
      const due = doc.state === 'calling' && doc.call_back_due_at ? { position, dueAtMs: doc.call_back_due_at.getTime() } : null;
      return { settled: true, callBack: due };
    }
    const call = await calls.findOne({ _id: pending.call_id });
    if (!call) return 'missing';
    if (call.result.state === 'pending') return 'awaiting';
    const finished = finishedCall(call);
    const entry = callEntry(call, pending.kind);
    const before = (doc.calls ?? []).filter((c) => c.call_id !== call._id);
    // Every call as it reads now: an earlier one may have been re-read since it was folded in.
    const earlier = await Promise.all(before.map((c) => calls.findOne({ _id: c.call_id })));
    const reread = earlier.every((c): c is CallDoc => c !== null && c.result.state !== 'pending');
    const outcome = reread ? mergeCalls([...earlier.map(finishedCall), finished], campaign.capture)! : mergeOutcome(doc.outcome ?? null, finished, campaign.capture);
    const history = [...(reread ? earlier.map((c, i) => callEntry(c, before[i]!.kind)) : before), entry];
    const owed = owesCallBack({ callBackIncomplete: campaign.call_back_incomplete, calls: history, outcome, last: finished });
    const dueAt = owed ? new Date(at.getTime() + CALL_BACK_DELAY_MS) : null;
    await recipients.updateOne(
      { _id: doc._id },
      {
        $set: {
          calls: history,
          outcome,
          call_pending: null,
          call_back_due_at: dueAt,
          ...(owed ? {} : { state: 'called' as const, state_at: at }),
        },
      },
    );
    return { settled: true, callBack: dueAt ? { position, dueAtMs: dueAt.getTime() } : null };
  }

  /**
   * Places one call for the person: records the call id on the recipient first, so a retried
   * step places the same call (the engine refuses a second workflow with that id, and a call
   * already written is not placed again).
   */
  async function placeOne(campaign: CampaignDoc, workspace: WorkspaceDoc, fromNumber: string, doc: CampaignRecipientDoc, kind: RecipientCall['kind'], at: Date): Promise<Placed> {
    let callId = doc.call_pending?.kind === kind ? doc.call_pending.call_id : null;
    // Written by an earlier attempt that died before recording it here: record it, never place it again.
    const earlier = callId ? await calls.findOne({ _id: callId }) : null;
    if (earlier) return recordPlaced(doc, earlier, kind, at);
    if (!callId) {
      callId = newId('call', at);
      await recipients.updateOne({ _id: doc._id }, { $set: { call_pending: { call_id: callId, kind } } });
    }
    // So a console re-read of the call finds its person (rereadRefold.ts).
    await linkCall(deps.db, { _id: callId, tenant_id: campaign.tenant_id, campaign_id: campaign._id, position: doc.position });
    const outcome = doc.outcome ?? null;
    const callBack = kind === 'call_back' && outcome !== null;
    const placed = await placeCall(
      placeCallDeps(deps, at),
      workspace,
      {
        to: doc.to,
        agent_id: campaign.agent_id,
        from_number: fromNumber,
        purpose: doc.purpose ?? null,
        script: doc.script ?? null,
        details: callBack ? answersSoFar(campaign.capture, outcome) : {},
        capture: callBack ? callBackCapture(campaign.capture, outcome) : campaign.capture,
        ring_seconds: CAMPAIGN_CALL_RING_SECONDS,
        // The person's name rides along so the console can say who a call was with (api/console/personNames.ts).
        metadata: { campaign_id: campaign._id, campaign_name: campaign.name, ...(doc.name ? { person_name: doc.name } : {}) },
      },
      { callId, dailyBudget: workspace.plan.campaign_calls_use_daily_budget ? 'count' : 'exempt' },
    );
    if (placed.kind === 'refused') {
      const reason = placed.refusal.reason;
      if (reason === 'call_concurrency') return { kind: 'busy' };
      if (PER_PERSON.has(reason)) return { kind: 'refused', reason: reason as RecipientReason };
      return { kind: 'hold', reason };
    }
    // Placed, or refused by the network (the call exists and ends `failed`): either way a call to fold in.
    return recordPlaced(doc, placed.call, kind, at);
  }

  async function recordPlaced(doc: CampaignRecipientDoc, call: CallDoc, kind: RecipientCall['kind'], at: Date): Promise<Placed> {
    await recipients.updateOne(
      { _id: doc._id },
      {
        $set: {
          calls: [...(doc.calls ?? []).filter((c) => c.call_id !== call._id), callEntry(call, kind)],
          call_pending: { call_id: call._id, kind },
          call_back_due_at: null,
          ...(doc.state === 'queued' ? { state: 'calling' as const, state_at: at } : {}),
        },
      },
    );
    return { kind: 'placed' };
  }

  /** A person the step could not call: a first call fails with the reason; a call-back leaves the record as it is, final. */
  async function refuse(doc: CampaignRecipientDoc, kind: RecipientCall['kind'], reason: RecipientReason, at: Date): Promise<void> {
    const set = kind === 'first' ? { state: 'failed' as const, skip_reason: reason } : { state: 'called' as const };
    await recipients.updateOne({ _id: doc._id }, { $set: { ...set, state_at: at, call_pending: null, call_back_due_at: null } });
  }

  return async function step(input: VoiceStepInput): Promise<VoiceStepResult> {
    const campaign = await findCampaign(deps.db, input.tenantId, input.campaignId);
    if (!campaign) throw permanentFailure(FailureType.ReadModelMissing, `campaign ${input.campaignId} has no record`);
    const at = new Date(input.nowMs);
    const touched = new Set<number>();
    const active: number[] = [];
    const newCallBacks: DueCallBack[] = [];
    const replace: number[] = [];
    for (const position of input.active) {
      const collected = await collect(campaign, position, at);
      if (collected === 'awaiting') active.push(position);
      else if (collected === 'missing') replace.push(position);
      else {
        touched.add(position);
        if (collected.callBack) newCallBacks.push(collected.callBack);
      }
    }
    // Cancelled: a call whose placing died is not placed now (the person is skipped, or
    // keeps what their first call taught), and owed call-backs are dropped; records stand as merged.
    if (input.dropCallBacks !== undefined) {
      for (const position of replace.splice(0)) {
        const doc = await readRecipient(campaign._id, position);
        const set = doc?.call_pending?.kind === 'call_back' ? { state: 'called' as const } : { state: 'skipped' as const, skip_reason: 'cancelled' };
        await recipients.updateOne({ _id: recipientId(campaign._id, position) }, { $set: { ...set, state_at: at, call_pending: null, call_back_due_at: null } });
        touched.add(position);
      }
    }
    for (const position of input.dropCallBacks ?? []) {
      await recipients.updateOne({ _id: recipientId(campaign._id, position), state: 'calling' }, { $set: { state: 'called', state_at: at, call_back_due_at: null } });
      touched.add(position);
    }
    // Cancelled: people waiting for their own window are skipped like the ones never reached.
    for (const position of input.dropWaiting ?? []) {
      await recipients.updateOne({ _id: recipientId(campaign._id, position), state: 'queued' }, { $set: { state: 'skipped', skip_reason: 'cancelled', state_at: at } });
      touched.add(position);
    }

    const base = { active, newCallBacks, placedCallBacks: [] as number[], waiting: [], settledWaiting: [], cursorOpensAtMs: null, placed: 0, waitingForPlace: false, opensAtMs: null, held: null, nextPlaceAtMs: input.nowMs };
    const answer = async (result: VoiceStepResult): Promise<VoiceStepResult> => {
      await recountTouched(input, touched, result.cursor);
      return result;
    };
    const window = { startHour: campaign.schedule.send_window_start_hour, endHour: campaign.schedule.send_window_end_hour };
    const zone = campaign.schedule.timezone;
    // Beyond the contract: each person's window in their own zone instead of the campaign's.
    const ownZones = campaign.schedule.recipient_time_zone === true;
    const canPlace = input.max > 0 || replace.length > 0;
    if (!canPlace) return answer({ ...base, cursor: input.cursor, active: [...active, ...replace] });
    if (!ownZones && !isWindowOpen(at, window, zone)) {
      return answer({ ...base, cursor: input.cursor, active: [...active, ...replace], opensAtMs: nextOpenTime(at, window, zone).getTime() });
    }
    const workspace = await collections(deps.db).workspaces.findOne({ _id: input.tenantId });
    if (!workspace) throw permanentFailure(FailureType.ReadModelMissing, `workspace ${input.tenantId} has no record`);
    const readiness = await readVoiceReadiness(deps.db, campaign, workspace);
    const fromNumber = readiness.agentNumbers[0];
    if (!fromNumber) return answer({ ...base, cursor: input.cursor, active: [...active, ...replace], held: 'no_agent_deployed' });

    const spacing = 60_000 / input.throttlePerMinute;
    const startedAt = Date.now();
    let cursor = input.cursor;
    let placed = 0;
    let waitingForPlace = false;
    let held: string | null = null;
    const placedCallBacks: number[] = [];
    const waiting: DueCallBack[] = [];
    const settledWaiting: number[] = [];
    let cursorOpensAtMs: number | null = null;
    let newlyWaiting = 0;
    // Calls whose placing died are placed again first (they were already counted), then
    // call-backs, then people whose own window has opened, then new people.
    type Item = { position: number; kind: RecipientCall['kind']; again: boolean; waited?: true; fresh?: true };
    const queue: Item[] = [
      ...replace.map((position) => ({ position, kind: 'first' as const, again: true })),
      ...input.dueCallBacks.map((position) => ({ position, kind: 'call_back' as const, again: false })),
      ...(input.dueWaiting ?? []).map((position) => ({ position, kind: 'first' as const, again: false, waited: true as const })),
    ];
    const next = (): Item | null => (queue.length > 0 ? queue.shift()! : cursor < input.recipients ? { position: cursor, kind: 'first', again: false, fresh: true } : null);
    for (let item = next(); item !== null; item = next()) {
      const fresh = item.fresh === true;
      if (placed >= input.max && !item.again) {
        if (!fresh) queue.unshift(item);
        break;
      }
      const doc = await readRecipient(campaign._id, item.position);
      const kind: RecipientCall['kind'] = item.again ? (doc?.call_pending?.kind ?? 'first') : item.kind;
      const owed = fresh || item.waited ? doc?.state === 'queued' : kind !== 'call_back' || item.again || doc?.state === 'calling';
      if (!doc || !owed) {
        // Done by an earlier attempt of this step, or no longer owed: pass it.
        if (fresh) cursor += 1;
        else if (item.waited) settledWaiting.push(item.position);
        else if (kind === 'call_back') placedCallBacks.push(item.position);
        if ((fresh || item.waited) && doc?.state === 'calling') active.push(item.position);
        continue;
      }
      if (ownZones && !item.again) {
        const personZone = recipientTimeZone(doc.to, zone);
        if (!isWindowOpen(at, window, personZone)) {
          // Their window is shut: they wait for it while others are called.
          const opensAtMs = nextOpenTime(at, window, personZone).getTime();
          if (kind === 'call_back') {
            placedCallBacks.push(item.position);
            newCallBacks.push({ position: item.position, dueAtMs: opensAtMs });
            continue;
          }
          if (item.waited) settledWaiting.push(item.position);
          else if (newlyWaiting >= (input.waitingRoom ?? 0)) {
            // The run holds no more waiting people: the next one waits where they stand.
            cursorOpensAtMs = opensAtMs;
            break;
          } else {
            newlyWaiting += 1;
            cursor += 1;
          }
          waiting.push({ position: item.position, dueAtMs: opensAtMs });
          runner.heartbeat(item.position);
          continue;
        }
      }
      const wait = startedAt + Math.round(placed * spacing) - Date.now();
      if (wait > 0) await runner.pace(wait);
      // Never recorded before its planned time, nor before it really happens (a slow step).
      const plannedAt = new Date(Math.max(input.nowMs + Math.round(placed * spacing), now().getTime()));
      const result = await placeOne(campaign, workspace, fromNumber, doc, kind, plannedAt);
      if (result.kind === 'busy') {
        waitingForPlace = true;
        if (item.again) active.push(item.position);
        break;
      }
      if (result.kind === 'hold') {
        held = result.reason;
        if (item.again) active.push(item.position);
        break;
      }
      touched.add(item.position);
      if (fresh) cursor += 1;
      if (item.waited) settledWaiting.push(item.position);
      else if (kind === 'call_back' && !item.again) placedCallBacks.push(item.position);
      if (result.kind === 'refused') await refuse(doc, kind, result.reason, plannedAt);
      else {
        active.push(item.position);
        placed += 1;
      }
      runner.heartbeat(item.position);
    }
    // Anything left in the queue stays owed for the next step.
    return answer({
      ...base,
      cursor,
      active,
      placedCallBacks,
      waiting,
      settledWaiting,
      cursorOpensAtMs,
      placed,
      waitingForPlace,
      held,
      nextPlaceAtMs: input.nowMs + Math.round(placed * spacing),
    });
  };

  /** Recounts the chunks of the positions this step changed. */
  async function recountTouched(input: VoiceStepInput, touched: Set<number>, cursor: number): Promise<void> {
    const chunks = new Set([...touched].map(chunkOf));
    if (cursor > input.cursor) for (let p = input.cursor; p < cursor; p++) chunks.add(chunkOf(p));
    if (chunks.size === 0) return;
    await recount(deps.db, { campaignId: input.campaignId, tenantId: input.tenantId, recipients: input.recipients, chunks: [...chunks], at: now() });
  }
}
