import { z } from 'zod';

/**
 * What a resource's `metadata` accepts (api-core §2 and §4 say only "object", stored and not
 * returned; a call's comes back on `call.outcome`). The one rule for calls, messages and every
 * resource after them, so what a client may store never depends on the route.
 *
 * Any JSON object, with nested objects and arrays, except what the database cannot store
 * (MongoDB field names, and FerretDB 1.x's document model, which refuses an array directly
 * inside an array) and bounded so a record stays small:
 * - keys, at every depth: 1 to 100 characters, not starting with `$`, without `.` or NUL;
 * - no array directly inside an array (`{"a": [[1]]}`; `{"a": [{"b": [1]}]}` is fine);
 * - at most 5 levels of nested objects and arrays below `metadata` itself;
 * - at most 16,384 bytes as compact JSON (UTF-8).
 * Values are otherwise any JSON value.
 */
export const METADATA_LIMITS = {
  keyMaxChars: 100,
  maxDepth: 5,
  maxJsonBytes: 16_384,
} as const;

export interface MetadataIssue {
  /** Where, below `metadata`: object keys and array positions. */
  path: (string | number)[];
  message: string;
}

function keyProblem(key: string): string | null {
  if (key.length === 0) return 'Metadata keys may not be empty.';
  if (key.length > METADATA_LIMITS.keyMaxChars) return `Metadata keys are at most ${METADATA_LIMITS.keyMaxChars} characters.`;
  if (key.startsWith('$')) return 'Metadata keys may not start with "$".';
  if (key.includes('.')) return 'Metadata keys may not contain ".".';
  if (key.includes('\0')) return 'Metadata keys may not contain NUL characters.';
  return null;
}

/** Every way `metadata` breaks the rule, each with its path; empty when it is acceptable. */
export function metadataIssues(metadata: Record<string, unknown>): MetadataIssue[] {
  const issues: MetadataIssue[] = [];
  const walk = (value: unknown, path: (string | number)[], depth: number, inArray: boolean): void => {
    if (value === null || typeof value !== 'object') return;
    if (depth > METADATA_LIMITS.maxDepth) {
      issues.push({ path, message: `Metadata nests at most ${METADATA_LIMITS.maxDepth} levels of objects and arrays.` });
      return;
    }
    if (Array.isArray(value)) {
      if (inArray) {
        issues.push({ path, message: 'Metadata may not hold an array directly inside an array.' });
        return;
      }
      value.forEach((item, index) => walk(item, [...path, index], depth + 1, true));
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      const problem = keyProblem(key);
      if (problem) issues.push({ path: [...path, key], message: problem });
      else walk(item, [...path, key], depth + 1, false);
    }
  };
  for (const [key, item] of Object.entries(metadata)) {
    const problem = keyProblem(key);
    if (problem) issues.push({ path: [key], message: problem });
    else walk(item, [key], 1, false);
  }
  if (issues.length === 0 && Buffer.byteLength(JSON.stringify(metadata), 'utf8') > METADATA_LIMITS.maxJsonBytes) {
    issues.push({ path: [], message: `Metadata is at most ${METADATA_LIMITS.maxJsonBytes} bytes as JSON.` });
  }
  return issues;
}

const DESCRIPTION =
  'Any JSON object, stored and not returned. Keys at every depth: 1 to 100 characters, not starting with `$`, ' +
  'without `.` or NUL. No array directly inside an array. At most 5 levels of nested objects and arrays and ' +
  '16,384 bytes as compact JSON. Anything else is 400 `Request validation failed.` with `loc` at the offending key.';

/** The request schema of `metadata`: refusals are validation failures whose `loc` names the key. */
export const metadataSchema = z
  .record(z.string(), z.unknown())
  .superRefine((metadata, ctx) => {
    for (const issue of metadataIssues(metadata)) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  })
  // The key rule at the top level in JSON Schema terms, so generated clients and fuzzers see it.
  .meta({ description: DESCRIPTION, propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.keyMaxChars, pattern: '^[^$.\\u0000][^.\\u0000]*$' } });
