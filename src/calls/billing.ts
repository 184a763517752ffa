import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { withPlanLease } from '../workspaces';
import { callCollections, type CallDoc } from './callStore';

/** How many billed calls a workspace remembers: far more than can finish between a plan write and its claim's clearing (a retry comes within minutes). */
const BILLED_CALL_IDS_KEPT = 200;

/** A call's billed minutes: started minutes, rounded up (0 for a call never connected). */
export function billableMinutes(durationSeconds: number): number {
  return Math.ceil(durationSeconds / 60);
}

/**
 * Bills an ended call's minutes, started minutes rounded up: the plan's included voice
 * minutes first, then prepaid voice credits. Once per call: the call's `|billed` effect is
 * claimed `pending` first (a unique insert: one winner), and the plan is changed under its lease
 * only while the claim is still pending, which the same lease then clears. So a finish whose
 * plan change failed (the lease not had in time under load, the store gone: `npm run
 * cluster:kill` lost 5 of 40 minutes so) bills on its retry, and a finish that billed bills
 * nothing again. A claim without `pending` (written before claims had it) was billed.
 * The plan's change carries the call's id in the same single-document write
 * (`billed_call_ids`, the latest BILLED_CALL_IDS_KEPT), so a finish that died between that
 * write and clearing its claim does not bill again on its retry.
 *
 * The call's own `billed_minutes` (`billableMinutes`) is written with its end
 * (src/calls/finishCall.ts), not here: one write of the call fewer.
 *
 * Answers the workspace as the plan's change read it (the finish's tally takes its time zone
 * from it rather than reading it again), or null when this try read none.
 */
export async function billCallMinutes(db: Db, call: Pick<CallDoc, '_id' | 'tenant_id'>, durationSeconds: number): Promise<WorkspaceDoc | null> {
  const minutes = billableMinutes(durationSeconds);
  if (minutes <= 0) return null;
  const { effects } = callCollections(db);
  const claimId = `${call._id}|billed`;
  // A claim this try wrote is pending by construction; one found is an earlier try's, read to see whether it billed.
  const claimed = await insertIfAbsent(effects, { _id: claimId, at: new Date(), pending: true });
  if (!claimed && !(await effects.findOne({ _id: claimId }))?.pending) return null;
  const { workspaces } = collections(db);
  let read: WorkspaceDoc | null = null;
  await withPlanLease(db, call.tenant_id, async () => {
    if (!(await effects.findOne({ _id: claimId }))?.pending) return;
    const workspace = await workspaces.findOne({ _id: call.tenant_id });
    read = workspace;
    const billed = workspace?.billed_call_ids ?? [];
    if (workspace && !billed.includes(call._id)) {
      const { voice_minutes_included: included, voice_minutes_used: used, voice_credits: credits } = workspace.plan;
      // A call admitted with a little left can run past it: it takes the credits there are and no
      // more (the plan's credits are a balance, never below zero, as conversations' are); the
      // minutes beyond still count in voice_minutes_used, so the overrun shows there.
      const fromCredits = Math.min(Math.max(0, credits), Math.max(0, minutes - Math.max(0, included - used)));
      await workspaces.updateOne(
        { _id: call.tenant_id },
        { $set: { 'plan.voice_minutes_used': used + minutes, 'plan.voice_credits': credits - fromCredits, billed_call_ids: [...billed, call._id].slice(-BILLED_CALL_IDS_KEPT) } },
      );
    }
    await effects.updateOne({ _id: claimId }, { $unset: { pending: '' } });
  });
  return read;
}
