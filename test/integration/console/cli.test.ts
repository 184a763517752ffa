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
    expect(keys.stdout).toMatch(
      /^key_id\s+name\s+display_prefix\s+environment\s+scopes\s+last_used_at\s+revoked_at\s+expires_at\nkey_\w+\s+Demo key \(every scope\)\s+ork_test_\w{4}\s+test\s+messages:send,/,
    );

    // A named key; without scopes, the refusal's sentence (issue 35 §8).
    const named = await cli('keys', 'create', ws.workspace_id, '--name', 'Billing system', '--scopes', 'calls:write', '--json');
    expect(named.status).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ name: 'Billing system', scopes: ['calls:write'], api_key: expect.stringMatching(/^ork_test_/) });
    const bare = await cli('keys', 'create', ws.workspace_id, '--name', 'Nothing');
    expect(bare.status).toBe(1);
    expect(bare.stderr).toContain('A key needs at least one scope: with none it could call nothing.');

    const update = await cli('workspaces', 'update', ws.workspace_id, '--suspended', 'true', '--plan.prepaid-credits', '5');
    expect(update.status).toBe(0);
    expect(update.stdout).toMatch(/^suspended\s+true$/m);
    expect(update.stdout).toMatch(/^plan\.prepaid_credits\s+5$/m);
  });

  it('sets an agent’s voice and a number’s team line, shows them, resets one, and prints a refusal at its field (issue 26)', async () => {
    const ws = JSON.parse((await cli('workspaces', 'create', '--name', 'Cli voice', '--json')).stdout).workspace_id as string;
    const created = await cli('agents', 'create', ws, '--name', 'Desk', '--language', 'EN-in', '--greeting', 'Hello from the desk!', '--idle-seconds', '12', '--json');
    expect(created.status).toBe(0);
    const agent = JSON.parse(created.stdout);
    expect(agent.voice).toMatchObject({ language: 'en-IN', greeting: 'Hello from the desk!', idle_seconds: 12 });

    const updated = await cli('agents', 'update', ws, agent.agent_id, '--persona', 'the front desk of Cli voice', '--reset', 'greeting');
    expect(updated.status).toBe(0);
    expect(updated.stdout).toMatch(/^voice\.persona\s+the front desk of Cli voice$/m);
    expect(updated.stdout).toMatch(/^voice\.greeting\s+Hello, thanks for calling\. How can I help you today\?$/m);
    expect(updated.stdout).toMatch(/^voice_set\s+persona,language,idle_seconds$/m);

    const listed = await cli('agents', 'list', ws);
    expect(listed.stdout).toMatch(new RegExp(`^agent_id\\s+name\\s+max_call_minutes\\s+voice\\.voice\\s+voice\\.language\\s+voice\\.idle_seconds\n${agent.agent_id}\\s+Desk\\s+10\\s+alloy\\s+en-IN\\s+12$`, 'm'));

    const refused = await cli('agents', 'update', ws, agent.agent_id, '--idle-seconds', '2');
    expect(refused.status).toBe(1);
    // Where and why in one line, then a hint; no JSON (issue 35 §10).
    expect(refused.stderr).toBe('error: voice.idle_seconds: Too small: expected number to be >=5\nhint: invalid_argument; --json prints the whole answer\n');

    const added = await cli('numbers', 'add', ws, '--number', '+912240003131', '--agent-id', agent.agent_id, '--team-line', '022 4000 3232');
    expect(added.status).toBe(0);
    expect(added.stdout).toMatch(/^team_line\s+\+912240003232$/m);
    expect((await cli('numbers', 'list', ws)).stdout).toMatch(/^number\s+agent_id\s+active\s+recording\s+team_line\n\+912240003131\s+bot_\w+\s+true\s+false\s+\+912240003232$/m);
    const cleared = await cli('numbers', 'update', ws, '912240003131', '--team-line', 'none', '--json');
    expect(JSON.parse(cleared.stdout).team_line).toBeNull();
  });

  it('prints the API’s error and exits 1', async () => {
    const res = await cli('workspaces', 'show', 'ws_missing');
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('error: Workspace not found.\nhint: not_found; --json prints the whole answer\n');
  });

  it('a usage mistake is one line and a hint, not the whole usage, and exits 2 (issue 35 §10)', async () => {
    const res = await cli('frobnicate', 'now');
    expect(res.status).toBe(2);
    expect(res.stderr).toBe('error: unknown command: frobnicate now\nhint: npm run console -- --help lists every command\n');
    const missing = await cli('keys', 'create');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe('error: missing <workspace_id>\nhint: it is written\n  keys create <workspace_id> --name <name> --scopes <scope,scope> [--environment live|test]\n');
    const help = await cli('keys', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.trim().split(' ').slice(0, 2).join(' '))).toEqual(['keys list', 'keys create', 'keys roll', 'keys revoke']);
  });

  it('a bad scope is a sentence naming the scopes there are, not raw JSON (issue 35 §10)', async () => {
    const ws = JSON.parse((await cli('workspaces', 'create', '--name', 'Cli scopes', '--json')).stdout).workspace_id as string;
    const res = await cli('keys', 'create', ws, '--name', 'Scopes probe', '--scopes', 'calls:write,calls:fly');
    expect(res.status).toBe(1);
    const [error, hint, ...rest] = res.stderr.split('\n');
    expect(error).toMatch(/^error: scopes \(value 2\): expected one of (\S+:\S+, )+\S+:\S+$/);
    expect(error).toContain('calls:write');
    expect(hint).toBe('hint: invalid_argument; --json prints the whole answer');
    expect(rest).toEqual(['']);
  });
});
