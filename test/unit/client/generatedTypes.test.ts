import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fromRoot } from '../../../src/local/paths';

// The generator's target list, from the script itself (CommonJS, so plain require).
const { TARGETS } = require('../../../scripts/api-types.cjs') as { TARGETS: Record<string, { out: string }> };

/**
 * The committed generated types are what openapi-typescript makes, now, of the documents the
 * routes describe: a route change committed without `npm run api:types` fails here. The
 * generator runs in a child process (its dependencies are ES modules, which jest's CommonJS
 * runtime cannot load) and prints to stdout; nothing is written.
 */
describe('generated API types', () => {
  it.each(Object.keys(TARGETS))('%s matches its document', async (name) => {
    const { stdout } = await promisify(execFile)(process.execPath, [fromRoot('scripts/api-types.cjs'), '--print', name], {
      cwd: fromRoot('.'),
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(stdout.length).toBeGreaterThan(0);
    expect(stdout).toBe(readFileSync(fromRoot(TARGETS[name]!.out), 'utf8'));
    // Loading the routes and TypeScript 5 takes about 4 s alone, several times that on a busy machine.
  }, 120_000);
});
