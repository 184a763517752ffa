import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { EventPublisher } from '../src/events/publisher';
import { createSystemActivities } from './system';

/**
 * What activities are built with; the worker process (and tests) assemble it once with
 * `buildActivityDeps` in src/worker/activityDeps.ts.
 */
export interface ActivityDeps {
  db: Db;
  /** For activities that start or signal other workflows. */
  temporal: Client;
  taskQueue: string;
  events: EventPublisher;
  now?: () => Date;
}

/** Every activity the worker registers, wired to the process's dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
