import type { Db } from 'mongodb';
import { collections } from '../src/db/collections';
import type { SystemCheckInput, SystemCheckResult } from '../src/temporal/contracts';

export interface SystemActivityDeps {
  db: Db;
  now?: () => Date;
}

export function createSystemActivities({ db, now = () => new Date() }: SystemActivityDeps) {
  const { systemChecks } = collections(db);
  return {
    /**
     * Safe to retry: an upsert keyed on the check id. The first attempt's `recorded_at`
     * stays; later attempts only count themselves.
     */
    async recordSystemCheck(input: SystemCheckInput & { workflowId: string }): Promise<SystemCheckResult> {
      const doc = await systemChecks.findOneAndUpdate(
        { _id: input.checkId },
        {
          $setOnInsert: {
            requested_at: new Date(input.requestedAt),
            recorded_at: now(),
            workflow_id: input.workflowId,
          },
          $inc: { attempts: 1 },
        },
        { upsert: true, returnDocument: 'after' },
      );
      if (!doc) throw new Error(`system check ${input.checkId} was not recorded`);
      return { checkId: input.checkId, recordedAt: doc.recorded_at.toISOString() };
    },
  };
}

export type SystemActivities = ReturnType<typeof createSystemActivities>;
