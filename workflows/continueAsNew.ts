import { allHandlersFinished, condition, continueAsNew, workflowInfo, type Workflow } from '@temporalio/workflow';

export interface ContinueAsNewPolicy {
  /**
   * Continue as new once the history holds this many events, even before the server suggests
   * it (a long-lived workflow keeps its replay cost small). The server's suggestion
   * (`continueAsNewSuggested`, near its history limits) always counts.
   */
  maxHistoryEvents?: number;
}

/** True when this run should hand over to a new one. */
export function continueAsNewDue(policy: ContinueAsNewPolicy = {}): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || (policy.maxHistoryEvents !== undefined && info.historyLength >= policy.maxHistoryEvents);
}

/**
 * For long-lived workflows (campaign runs, due chases): call at a safe point of the main
 * loop. When a new run is due it waits until every signal and update handler has finished
 * (an update still running would otherwise be dropped, and its caller would see an error),
 * then continues as new with the arguments `carry` builds at that moment, so whatever the
 * handlers changed while it waited is carried over. Returns when no new run is due; never
 * returns otherwise.
 *
 *   await continueAsNewIfDue<typeof campaignRun>(() => [{ ...state }], { maxHistoryEvents: 2_000 });
 */
export async function continueAsNewIfDue<W extends Workflow>(carry: () => Parameters<W>, policy: ContinueAsNewPolicy = {}): Promise<void> {
  if (!continueAsNewDue(policy)) return;
  await condition(allHandlersFinished);
  await continueAsNew<W>(...carry());
}
