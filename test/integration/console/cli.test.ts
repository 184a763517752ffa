import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fromRoot } from '../../../src/local/paths';
import { useTestApi } from '../../support/app';

/** The compiled CLI (`npm run console`) against a real API; needs `npm run build` first. */
describe('npm run console', () => {
  const { api } = useTestApi();
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const { port } = api.server.address() as AddressInfo;
    env = { PATH: process.env.PATH, CONSOLE_URL: `http://127.0.0.1:${port}`, CONSOLE_TOKEN: api.config.CONSOLE_TOKEN };
  });

  // Asynchronous: the API under test answers from this same process.
  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [fromRoot('dist/src/main/console.js'), ...args], { env, timeout: 20_000 }, (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
      );
    });

  it('creates a demo workspace (--json for scripts) and lists its keys for a person', async () => {
    const created = await cli('workspaces', 'create', '--name', 'Cli demo', '--demo', '--json');
    expect(created.status).toBe(0);
    const ws = JSON.parse(created.stdout);
    expect(ws).toMatchObject({ workspace_id: expect.stringMatching(/^ws_/), api_key: expect.stringMatching(/^ork_test_/), demo: true });

    const keys = await cli('keys', 'list', ws.workspace_id);
    expect(keys.status).toBe(0);
    expect(keys.stdout).toMatch(/^key_id\s+display_prefix\s+environment\s+scopes\s+revoked_at\s+expires_at\nkey_\w+\s+ork_test_\w{4}\s+test\s+messages:send,/);

    const update = await cli('workspaces', 'update', ws.workspace_id, '--suspended', 'true', '--plan.prepaid-credits', '5');
    expect(update.status).toBe(0);
    expect(update.stdout).toMatch(/^suspended\s+true$/m);
    expect(update.stdout).toMatch(/^plan\.prepaid_credits\s+5$/m);
  });

  it('prints the API’s error and exits 1', async () => {
    const res = await cli('workspaces', 'show', 'ws_missing');
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('error: not_found: Workspace not found.\n');
  });

  it('prints usage and exits 2 for an unknown command', async () => {
    const res = await cli('frobnicate', 'now');
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/^unknown command: frobnicate now\n\nusage: npm run console/);
  });
});
