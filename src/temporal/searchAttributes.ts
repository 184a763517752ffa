import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/**
 * What an operator filters on in the Temporal UI (docs/workflows.md "Finding a workflow in the
 * Temporal UI"): every workflow we start carries the workspace, the resource it runs for and
 * its kind, the resource's status where the workflow changes it, a call's number, and the
 * resource's name (`ResourceName`, a column the UI's workflow list can show beside the id);
 * its memo carries the same name and its static summary a line about it. The servers register these keys (src/local/servers.ts, the
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

/**
 * What an operator calls the resource: a campaign's name, a subscriber's name, the person a call
 * was with (with their number), else the number (issue 35 §13). Set at the start only (never
 * upserted), so no workflow's commands change and stored histories replay as they were.
 */
export const ResourceName = defineSearchAttributeKey('ResourceName', SearchAttributeType.KEYWORD);

/** Every key with its type, as the servers register them. */
export const SEARCH_ATTRIBUTES = [WorkspaceId, ResourceId, ResourceKind, ResourceStatus, PhoneNumber, ResourceName] as const;

/** A Keyword holds a few hundred characters comfortably; a longer name is cut, marked with an ellipsis. */
export const RESOURCE_NAME_MAX = 200;

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
  /** `ResourceName` and the memo's `name`: a campaign's name, a subscriber's name, a call's person and number. */
  name?: string;
  /** The start's static summary (the UI shows it with the workflow), e.g. `Call to Kavya (+91…) about a delivery`; the name when absent. */
  summary?: string;
}

/** A start's `typedSearchAttributes`, `memo` and `staticSummary` for one resource's workflow. */
export function visibilityOptions(v: WorkflowVisibility): { typedSearchAttributes: SearchAttributePair[]; memo?: Record<string, unknown>; staticSummary?: string } {
  const pairs: SearchAttributePair[] = [
    { key: ResourceKind, value: v.kind },
    { key: ResourceId, value: v.id },
  ];
  if (v.workspaceId) pairs.push({ key: WorkspaceId, value: v.workspaceId });
  if (v.status) pairs.push({ key: ResourceStatus, value: v.status });
  if (v.phoneNumber) pairs.push({ key: PhoneNumber, value: v.phoneNumber });
  const name = v.name?.trim() ? clip(v.name.trim()) : undefined;
  if (name) pairs.push({ key: ResourceName, value: name });
  const summary = v.summary?.trim() || name;
  return { typedSearchAttributes: pairs, ...(name ? { memo: { name } } : {}), ...(summary ? { staticSummary: summary } : {}) };
}

function clip(text: string): string {
  return text.length <= RESOURCE_NAME_MAX ? text : `${text.slice(0, RESOURCE_NAME_MAX - 1)}…`;
}
