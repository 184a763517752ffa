import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fromRoot, repoRoot } from '../../src/local/paths';

/**
 * The import rules that keep workflow code deterministic and the shared contracts low in
 * the import graph:
 * - workflow files value-import only the workflow SDK, other workflow files and the shared
 *   contract modules (Node built-ins, database, HTTP and activity implementations are I/O and
 *   belong in activities; `import type` is erased at compile time and always allowed);
 * - a contract module value-imports only the workflow SDK and other contract modules, and
 *   imports nothing at all from workflows/, activities/ or api/;
 * - nothing in src/, activities/ or api/ imports from workflows/ (the worker names the
 *   folder by path, src/worker/createWorker.ts, which is a string, not an import).
 */
const SDK = [/^@temporalio\/workflow$/, /^@temporalio\/common$/];

/** What API, activities and workflows share: one contracts file per feature, plus the failure list and the definition helper. */
function isContractModule(path: string): boolean {
  return /^src\/[\w-]+\/contracts\.ts$/.test(path) || path === 'src/temporal/failures.ts' || path === 'src/temporal/workflowDefinition.ts';
}

interface Import {
  specifier: string;
  typeOnly: boolean;
}

function imports(source: string): Import[] {
  const found: Import[] = [];
  for (const m of source.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm)) found.push({ specifier: m[2]!, typeOnly: Boolean(m[1]) });
  for (const m of source.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) found.push({ specifier: m[1]!, typeOnly: false });
  for (const m of source.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push({ specifier: m[1]!, typeOnly: false });
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push({ specifier: m[1]!, typeOnly: false });
  return found;
}

const valueImports = (source: string): string[] => imports(source).filter((i) => !i.typeOnly).map((i) => i.specifier);

/** A relative specifier as a repository-relative path (`.ts` file or folder index); null for a package. */
function resolveFrom(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(repoRoot(), dirname(file), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(repoRoot(), candidate).split('\\').join('/');
  }
  return relative(repoRoot(), base).split('\\').join('/');
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(fromRoot(dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const read = (file: string) => readFileSync(fromRoot(file), 'utf8');

/** The value imports of `file` that the rules forbid, given what its layer may import. */
function forbiddenValueImports(file: string, allowLocal: (path: string) => boolean): string[] {
  return valueImports(read(file)).filter((spec) => {
    if (SDK.some((re) => re.test(spec))) return false;
    const path = resolveFrom(file, spec);
    return path === null || !allowLocal(path);
  });
}

const workflowFiles = tsFiles('workflows');
const contractFiles = tsFiles('src').filter(isContractModule);
const belowWorkflows = [...tsFiles('src'), ...tsFiles('activities'), ...tsFiles('api')];

describe('workflow files', () => {
  it.each(workflowFiles)('%s imports only deterministic code', (file) => {
    expect(forbiddenValueImports(file, (path) => path.startsWith('workflows/') || isContractModule(path))).toEqual([]);
  });

  it('the check catches a value import of an activity, a Node built-in, a driver or a non-contract src module', () => {
    const bad = [
      "import { createSystemActivities } from '../activities/system';",
      "import { readFileSync } from 'node:fs';",
      "import { MongoClient } from 'mongodb';",
      "import { callCollections } from '../src/calls/callStore';",
      "import { callWorkflowId } from '../src/calls/contracts';",
    ].join('\n');
    const forbidden = valueImports(bad).filter(
      (spec) => !SDK.some((re) => re.test(spec)) && !(resolveFrom('workflows/call.ts', spec) ?? '').match(/^src\/[\w-]+\/contracts\.ts$/),
    );
    expect(forbidden).toEqual(['../activities/system', 'node:fs', 'mongodb', '../src/calls/callStore']);
    expect(valueImports("import type { SystemActivities } from '../activities/system';")).toEqual([]);
  });
});

describe('contract modules', () => {
  it('there is one per feature the workflows serve', () => {
    expect(contractFiles.sort()).toEqual([
      'src/calls/contracts.ts',
      'src/messaging/contracts.ts',
      'src/temporal/contracts.ts',
      'src/temporal/failures.ts',
      'src/temporal/workflowDefinition.ts',
      'src/webhooks/contracts.ts',
    ]);
  });

  it.each(contractFiles)('%s value-imports only the workflow SDK and other contracts', (file) => {
    expect(forbiddenValueImports(file, isContractModule)).toEqual([]);
  });

  it.each(contractFiles)('%s imports nothing from workflows/, activities/ or api/, not even types', (file) => {
    const upward = imports(read(file))
      .map((i) => resolveFrom(file, i.specifier))
      .filter((path): path is string => path !== null && /^(workflows|activities|api)\//.test(path));
    expect(upward).toEqual([]);
  });
});

describe('nothing below the workflows imports them', () => {
  it.each(belowWorkflows)('%s', (file) => {
    const upward = imports(read(file))
      .filter((i) => !(file === 'src/worker/createWorker.ts' && i.specifier === '../../workflows'))
      .map((i) => resolveFrom(file, i.specifier))
      .filter((path): path is string => path !== null && path.startsWith('workflows'));
    expect(upward).toEqual([]);
  });

  it('the worker names the workflows folder by path only', () => {
    expect(read('src/worker/createWorker.ts')).toMatch(/require\.resolve\('\.\.\/\.\.\/workflows'\)/);
  });

  it('the check sees a type-only import too', () => {
    const found = imports("import type { deliverWebhook } from '../../workflows/deliverWebhook';").map((i) => resolveFrom('src/webhooks/startDelivery.ts', i.specifier));
    expect(found).toEqual(['workflows/deliverWebhook.ts']);
  });
});
