import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../db/collections';
import { withPlanLease } from '../workspaces';

/**
 * The plan's chat allowance (api-core §4 POST /messages rule 6). A template send is one
 * billable conversation, taken from the plan's included conversations first, then from its
 * prepaid credits; text sends take nothing but are refused like templates once both are
 * used up.
 *
 * Every change to the plan's counters runs under the workspace's plan lease: FerretDB loses
 * concurrent updates to one document (see src/db/leaseLock.ts), so a conditional `$inc`
 * alone would let parallel sends spend the same conversation twice.
 */

export type AllowanceSource = 'included' | 'credit';

type Plan = WorkspaceDoc['plan'];

/** Whether one more billable conversation can be taken. */
export function allowanceLeft(plan: Plan): boolean {
  return plan.conversations_used < plan.conversations_included || plan.prepaid_credits >= 1;
}

/** Where the next billable conversation comes from, or null when none is left. */
export function nextSource(plan: Plan): AllowanceSource | null {
  if (plan.conversations_used < plan.conversations_included) return 'included';
  if (plan.prepaid_credits >= 1) return 'credit';
  return null;
}

/** The lease every read-modify-write of a workspace's plan counters takes (voice minutes too). */
export { withPlanLease };

export type ConsumeResult =
  | { ok: true; source: AllowanceSource }
  | { ok: false; reason: 'workspace_suspended' | 'allowance_exhausted' };

/**
 * Takes one billable conversation. Reads the workspace afresh inside the lease, so a
 * suspension or a spent allowance that landed since the request began is seen here.
 */
export async function consumeConversation(db: Db, tenantId: string): Promise<ConsumeResult> {
  const { workspaces } = collections(db);
  return withPlanLease(db, tenantId, async () => {
    const workspace = await workspaces.findOne({ _id: tenantId });
    if (!workspace || workspace.suspended) return { ok: false, reason: 'workspace_suspended' };
    const source = nextSource(workspace.plan);
    if (!source) return { ok: false, reason: 'allowance_exhausted' };
    const change =
      source === 'included'
        ? { 'plan.conversations_used': workspace.plan.conversations_used + 1 }
        : { 'plan.prepaid_credits': workspace.plan.prepaid_credits - 1 };
    await workspaces.updateOne({ _id: tenantId }, { $set: change });
    return { ok: true, source };
  });
}

/** Gives back a conversation taken for a send the provider did not accept. */
export async function refundConversation(db: Db, tenantId: string, source: AllowanceSource): Promise<void> {
  const { workspaces } = collections(db);
  await withPlanLease(db, tenantId, async () => {
    const workspace = await workspaces.findOne({ _id: tenantId });
    if (!workspace) return;
    const change =
      source === 'included'
        ? { 'plan.conversations_used': Math.max(0, workspace.plan.conversations_used - 1) }
        : { 'plan.prepaid_credits': workspace.plan.prepaid_credits + 1 };
    await workspaces.updateOne({ _id: tenantId }, { $set: change });
  });
}
