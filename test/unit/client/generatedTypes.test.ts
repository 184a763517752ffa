import { execFile } from 'node:child_process';
import { fromRoot } from '../../../src/local/paths';

// The generator's target list, from the script itself (CommonJS, so plain require).
const { TARGETS } = require('../../../scripts/api-types.cjs') as { TARGETS: Record<string, { out: string }> };

/**
 * The committed generated types are what openapi-typescript makes, now, of the documents the
 * routes describe: a route change committed without `npm run api:types` fails here. The
 * script's `--check` regenerates every target in memory and compares with the committed
 * file, writing nothing. It runs in a child process (the generator's dependencies are ES
 * modules, which jest's CommonJS runtime cannot load), once for all targets: loading the
 * routes and TypeScript 5 is most of its time.
 */
describe('generated API types', () => {
  it(`match their documents (${Object.keys(TARGETS).join(', ')})`, async () => {
    const outcome = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [fromRoot('scripts/api-types.cjs'), '--check'], { cwd: fromRoot('.') }, (err, _stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      );
    });
    // On drift stderr names each stale file: `… differs from its document: run npm run api:types`.
    expect(outcome).toEqual({ code: 0, stderr: '' });
  }, 120_000);
});
