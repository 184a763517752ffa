import type { Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { SEARCH_ATTRIBUTES } from './searchAttributes';

/**
 * Registers whichever of our search attributes (searchAttributes.ts) the server lacks, and
 * answers their names. The dev server registers them from its command line only when it
 * creates its database (src/local/servers.ts), so one started on data from an earlier
 * release gets the rest here.
 */
export async function registerMissingSearchAttributes(connection: Pick<Connection, 'operatorService'>, namespace: string): Promise<string[]> {
  const known = await connection.operatorService.listSearchAttributes({ namespace });
  const present = new Set([...Object.keys(known.customAttributes ?? {}), ...Object.keys(known.systemAttributes ?? {})]);
  const missing = SEARCH_ATTRIBUTES.filter((key) => !present.has(key.name));
  if (missing.length > 0) await addSearchAttributes(connection, namespace, missing);
  return missing.map((key) => key.name);
}

/** Adds `keys` (all of ours by default): the time-skipping test server, which cannot list them, knows none until told. */
export async function addSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
  keys: readonly (typeof SEARCH_ATTRIBUTES)[number][] = SEARCH_ATTRIBUTES,
): Promise<void> {
  await connection.operatorService.addSearchAttributes({
    namespace,
    // The SDK's own name → enum mapping (the package index does not re-export it).
    searchAttributes: Object.fromEntries(keys.map((key) => [key.name, encodeSearchAttributeIndexedValueType(key.type)!])),
  });
}

/** A visibility query naming every attribute: refused until the server's caches know them all. */
export const EVERY_ATTRIBUTE_QUERY = SEARCH_ATTRIBUTES.map((key) => `${key.name} = 'probe'`).join(' AND ');
