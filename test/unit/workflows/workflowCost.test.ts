import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionsIn } from '../../../bench/workflowCost';
import { historyFromStoredJson } from '../../support/histories';

/**
 * The benches' estimate of Temporal Cloud's billable actions (bench/workflowCost.ts), on the
 * stored histories of an answered and read call before and after issue 36 (and its callLifecycleV2).
 */
const stored = (file: string) =>
  historyFromStoredJson((JSON.parse(readFileSync(join(__dirname, '..', '..', 'workflow', 'histories', file), 'utf8')) as { history: unknown }).history).events!;

describe('billable actions in a history', () => {
  it('callLifecycleV2, answered and read, placed without an update (issue 36 §3): start, 2 signals, 2 timers, 3 tasks with local activities = 8; no patch, no upsert', () => {
    const events = stored('callLifecycleV2.answered.json');
    expect(events).toHaveLength(19);
    expect(actionsIn(events as Parameters<typeof actionsIn>[0])).toBe(8);
  });

  it('callLifecycleV2 placed by the placement update (before POST /calls waited on the history): start, placement update, 2 signals, 2 timers, 3 tasks with local activities = 9', () => {
    const events = stored('before-placement-query/callLifecycleV2.answered.json');
    expect(events).toHaveLength(21);
    expect(actionsIn(events as Parameters<typeof actionsIn>[0])).toBe(9);
  });

  it('callLifecycle, answered and read in one end step: start, its patch marker and upsert, placement update, 2 signals, 2 timers, 2 upserts, 3 tasks with local activities = 13', () => {
    const events = stored('callLifecycle.answered.json');
    expect(events).toHaveLength(25);
    expect(actionsIn(events as Parameters<typeof actionsIn>[0])).toBe(13);
  });

  it('callLifecycle before its one-step end: start, placement update, 2 signals, 2 timers, 2 upserts, the reader, 4 tasks with local activities = 13', () => {
    const events = stored('before-call-end-in-one-step/callLifecycle.answered.json');
    expect(events).toHaveLength(31);
    expect(actionsIn(events as Parameters<typeof actionsIn>[0])).toBe(13);
  });

  it('callWorkflow, answered and read: also its 3 patch markers, their 3 upserts and the placing activity = 20', () => {
    const events = stored('callWorkflow.answered.json');
    expect(events).toHaveLength(46);
    expect(actionsIn(events as Parameters<typeof actionsIn>[0])).toBe(20);
  });
});
