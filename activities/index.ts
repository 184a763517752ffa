import { createSystemActivities, type SystemActivityDeps } from './system';

export type ActivityDeps = SystemActivityDeps;

/** Every activity the worker registers, wired to the process's dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
