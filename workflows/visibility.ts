import { patched, upsertSearchAttributes } from '@temporalio/workflow';
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
