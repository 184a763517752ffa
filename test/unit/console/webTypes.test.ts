import { spawnSync } from 'node:child_process';
import { fromRoot } from '../../../src/local/paths';

/** The web console's generated API types follow the console's OpenAPI document: a route changed without regenerating fails here. */
describe('api/console/web/src/generated/console.ts', () => {
  it('is what openapi-typescript makes of the console document today', () => {
    const run = spawnSync(process.execPath, [fromRoot('scripts/console-web-types.cjs'), '--check'], { encoding: 'utf8', timeout: 50_000 });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
