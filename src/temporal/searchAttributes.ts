import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/**
 * What an operator filters on in the Temporal UI (docs/workflows.md "Finding a workflow in the
 * Temporal UI"): every workflow we start carries the workspace, the resource it runs for and
 * its kind, the resource's status where the workflow changes it, and a call's number; its memo
 * carries a human name. The servers register these keys (src/local/servers.ts, the
 * `temporal-search-attributes` service in docker-compose.yml, the time-skipping test server in
 * test/support/timeSkipping.ts); a start or upsert naming a key the server does not know fails.
 * Stable names, never renamed: running workflows and the visibility store carry them.
 *
 * Imported by workflow code: no Node built-ins, no I/O.
 */
export const WorkspaceId = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);
export const ResourceId = defineSearchAttributeKey('ResourceId', SearchAttributeType.KEYWORD);
export const ResourceKind = defineSearchAttributeKey('ResourceKind', SearchAttributeType.KEYWORD);
export const ResourceStatus = defineSearchAttributeKey('ResourceStatus', SearchAttributeType.KEYWORD);
/** A call's other party (E.164): the number called, or the caller of an inbound call. */
export const PhoneNumber = defineSearchAttributeKey('PhoneNumber', SearchAttributeType.KEYWORD);

/** Every key with its type, as the servers register them. */
export const SEARCH_ATTRIBUTES = [WorkspaceId, ResourceId, ResourceKind, ResourceStatus, PhoneNumber] as const;

/** The CLI's `--search-attribute KEY=TYPE` (and `temporal operator search-attribute create`) type names. */
export const CLI_SEARCH_ATTRIBUTE_TYPE: Record<(typeof SEARCH_ATTRIBUTES)[number]['type'], string> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
};

export type ResourceKindName = 'campaign' | 'call' | 'webhook_endpoint' | 'due' | 'subscriber' | 'payment_link' | 'system_check';

export interface WorkflowVisibility {
  /** Absent for the system check, which belongs to no workspace. */
  workspaceId?: string;
  kind: ResourceKindName;
  id: string;
  status?: string;
  phoneNumber?: string;
  /** Shown as the memo's `name`: a campaign's name, a subscriber's name, a call's number. */
  name?: string;
}

/** A start's `typedSearchAttributes` and `memo` for one resource's workflow. */
export function visibilityOptions(v: WorkflowVisibility): { typedSearchAttributes: SearchAttributePair[]; memo?: Record<string, unknown> } {
  const pairs: SearchAttributePair[] = [
    { key: ResourceKind, value: v.kind },
    { key: ResourceId, value: v.id },
  ];
  if (v.workspaceId) pairs.push({ key: WorkspaceId, value: v.workspaceId });
  if (v.status) pairs.push({ key: ResourceStatus, value: v.status });
  if (v.phoneNumber) pairs.push({ key: PhoneNumber, value: v.phoneNumber });
  return { typedSearchAttributes: pairs, ...(v.name ? { memo: { name: v.name } } : {}) };
}
