import type { Db } from 'mongodb';
import { collections } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { withPlanLease } from '../workspaces';
import { callCollections, type CallDoc } from './callStore';

/**
 * Bills an ended call's minutes, started minutes rounded up: the plan's included voice
 * minutes first, then prepaid voice credits. Once per call (a claim in the call's effects),
 * so a retried finish bills nothing twice; the plan is changed under its lease.
 */
export async function billCallMinutes(db: Db, call: Pick<CallDoc, '_id' | 'tenant_id'>, durationSeconds: number): Promise<void> {
  const minutes = Math.ceil(durationSeconds / 60);
  const { calls, effects } = callCollections(db);
  if (minutes <= 0 || !(await insertIfAbsent(effects, { _id: `${call._id}|billed`, at: new Date() }))) return;
  await calls.updateOne({ _id: call._id }, { $set: { billed_minutes: minutes } });
  const { workspaces } = collections(db);
  await withPlanLease(db, call.tenant_id, async () => {
    const workspace = await workspaces.findOne({ _id: call.tenant_id });
    if (!workspace) return;
    const { voice_minutes_included: included, voice_minutes_used: used, voice_credits: credits } = workspace.plan;
    const fromCredits = Math.max(0, minutes - Math.max(0, included - used));
    await workspaces.updateOne({ _id: call.tenant_id }, { $set: { 'plan.voice_minutes_used': used + minutes, 'plan.voice_credits': credits - fromCredits } });
  });
}
