import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../src/local/paths';

/**
 * Workflow code must stay deterministic: it may import the workflow SDK, other workflow
 * files and types. Node built-ins, database, HTTP and activity implementations are I/O and
 * belong in activities. `import type` is erased at compile time and always allowed.
 */
const ALLOWED_VALUE_IMPORTS = [/^@temporalio\/workflow$/, /^@temporalio\/common$/, /^\.\/[\w-]+$/];

/** Repository-relative paths of every workflow source file. */
function workflowFiles(): string[] {
  return readdirSync(fromRoot('workflows'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join('workflows', f));
}

function valueImports(source: string): string[] {
  const specifiers: string[] = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm)) specifiers.push(m[2]!);
  for (const m of source.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(m[1]!);
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(m[1]!);
  return specifiers;
}

describe('workflow files', () => {
  it.each(workflowFiles())('%s imports only deterministic code', (file) => {
    const source = readFileSync(fromRoot(file), 'utf8');
    const forbidden = valueImports(source).filter((spec) => !ALLOWED_VALUE_IMPORTS.some((re) => re.test(spec)));
    expect(forbidden).toEqual([]);
  });

  it('the check catches a value import of an activity, a Node built-in or a driver', () => {
    const bad = [
      "import { createSystemActivities } from '../activities/system';",
      "import { readFileSync } from 'node:fs';",
      "import { MongoClient } from 'mongodb';",
    ].join('\n');
    expect(valueImports(bad).filter((spec) => !ALLOWED_VALUE_IMPORTS.some((re) => re.test(spec)))).toEqual([
      '../activities/system',
      'node:fs',
      'mongodb',
    ]);
    expect(valueImports("import type { SystemActivities } from '../activities/system';")).toEqual([]);
  });
});
