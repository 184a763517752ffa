import type { Db } from 'mongodb';
import { withLease } from '../db/leaseLock';

/**
 * Every change to a workspace's plan counters (chat conversations, prepaid credits, voice
 * minutes) runs under this one lease: FerretDB loses concurrent updates to one document,
 * so two features updating the plan at once must take turns.
 */
export function withPlanLease<T>(db: Db, tenantId: string, fn: () => Promise<T>): Promise<T> {
  return withLease(db, `workspace-plan:${tenantId}`, fn);
}
