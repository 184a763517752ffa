import { patched, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { ResourceStatus } from '../src/temporal/searchAttributes';

/** Issue 27: runs that took this marker keep `ResourceStatus` in step; earlier histories replay without the upserts. */
const STATUS_ATTRIBUTE_PATCH = 'status-search-attribute';

/** Shows the resource's new status in the Temporal UI (the `ResourceStatus` search attribute). */
export function showStatus(status: string): void {
  if (patched(STATUS_ATTRIBUTE_PATCH)) upsertSearchAttributes([{ key: ResourceStatus, value: status }]);
}

/** The same without the patch, for workflow types whose every run sets it (callLifecycle): a patch costs each run two history events. */
export function setStatusAttribute(status: string): void {
  upsertSearchAttributes([{ key: ResourceStatus, value: status }]);
}

/**
 * Shows the resource's status as the workflow's current details (the Temporal UI's "Current
 * details", answered by the SDK's metadata query): no history event and no billed action, where
 * an upsert costs one of each on every move (callLifecycleV2, issue 36 §3). Not searchable:
 * the lists tell running runs from closed ones by `ExecutionStatus`.
 */
export function showStatusInDetails(status: string): void {
  setCurrentDetails(`status: ${status}`);
}
