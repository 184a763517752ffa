import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { fromRoot } from '../../../src/local/paths';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';

// Each command is a node process of its own, seconds to start on a loaded machine; the first case runs a dozen.
jest.setTimeout(120_000);

/** The compiled CLI's call commands (`npm run console -- call …`, `sim call …`) against a real API and worker; needs `npm run build` first. */
describe('npm run console: calls and the call simulator', () => {
  const { api, ws } = useTestApi({ worker: true });
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const { port } = api.server.address() as AddressInfo;
    env = { PATH: process.env.PATH, CONSOLE_URL: `http://127.0.0.1:${port}`, CONSOLE_TOKEN: api.config.CONSOLE_TOKEN };
  });

  // Asynchronous: the API under test answers from this same process.
  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [fromRoot('dist/src/main/console.js'), ...args], { env, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
      );
    });

  async function untilDecided(callId: string): Promise<any> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await request(api.server).get(`/api/v1/calls/${callId}`).set(bearer(ws.key));
      expect(res.status).toBe(200);
      if (res.body.result.state !== 'pending') return res.body;
      if (Date.now() > deadline) throw new Error(`call ${callId} stuck: ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('scripts a destination, shows the call it shaped with its transcript, reads it again, and clears the script', async () => {
    const set = await cli('sim', 'call', 'set', ws.workspaceId, '+919811100031', '--ring', '0', '--seconds-per-turn', '0.1', '--answer', 'rating=I would give it a 5', '--json');
    expect(set.status).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      destination: '+919811100031',
      script: expect.objectContaining({ ring_seconds: 0, seconds_per_turn: 0.1, answer: true, end: 'agent_hangup', answers: { rating: 'I would give it a 5' } }),
    });
    const listed = await cli('sim', 'call', 'list', ws.workspaceId);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^destination\s+answer\s+ring_seconds\s+network_outcome\s.*\n\+919811100031\s+true\s+0\s+no_answer\s+false\s+false\s+-\s+agent_hangup\s+-\s+0\.1\s+ok\s+-\s+1\n$/);

    const placed = await request(api.server)
      .post('/api/v1/calls')
      .set(bearer(ws.key))
      .send({ to: '+919811100031', capture: { fields: [{ label: 'Rating', type: 'rating', required: true }] } });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    expect(await untilDecided(callId)).toMatchObject({ status: 'completed', result: { state: 'ready', fields: { rating: 5 } } });

    const shown = await cli('call', 'show', ws.workspaceId, callId);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^call_id\\s+${callId}$`, 'm'));
    expect(shown.stdout).toMatch(/^status\s+completed$/m);
    expect(shown.stdout).toMatch(/^result\.state\s+ready$/m);
    expect(shown.stdout).toMatch(/^result\.fields\.rating\s+5$/m);
    expect(shown.stdout).toMatch(/^capture\.rating\s+rating, required$/m);
    expect(shown.stdout).toMatch(/^readings\s+1$/m);
    // The times in the workspace's zone (never UTC), the zone named once at the end (issue 35 §2).
    expect(shown.stdout).toMatch(/\ntranscript:\n(\s+\d+\.\ds\s+(model|user)\s+.+\n)+\(times in \S+, the workspace's time zone\)\n$/);
    expect(shown.stdout).toMatch(/^started_at\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/m);
    expect(shown.stdout).toMatch(/^\s+\d+\.\ds\s+user\s+I would give it a 5$/m);

    const json = await cli('call', 'show', ws.workspaceId, callId, '--json');
    expect(json.status).toBe(0);
    const body = JSON.parse(json.stdout);
    expect(body).toMatchObject({ call_id: callId, readings: 1, result: { state: 'ready' } });
    expect(body.transcript).toContainEqual({ role: 'user', text: 'I would give it a 5', at_seconds: expect.any(Number) });

    const reread = await cli('call', 'reread', ws.workspaceId, callId);
    expect(reread.status).toBe(0);
    expect(reread.stdout).toBe(`call_id      ${callId}\nreading      2\nworkflow_id  ${callId}:read:2\n`);
    const deadline = Date.now() + 60_000;
    while (JSON.parse((await cli('call', 'show', ws.workspaceId, callId, '--json')).stdout).readings < 2) {
      if (Date.now() > deadline) throw new Error('the re-read never landed');
      await new Promise((r) => setTimeout(r, 250));
    }

    const cleared = await cli('sim', 'call', 'clear', ws.workspaceId, '+919811100031');
    expect(cleared.status).toBe(0);
    expect(cleared.stdout).toBe('destination  +919811100031\ncleared      true\n');
    expect((await cli('sim', 'call', 'list', ws.workspaceId)).stdout).toBe('(none)\n');
  });

  it('places a simulated inbound call that the number’s agent answers', async () => {
    const res = await cli('call', 'inbound', ws.workspaceId, '--from', '+919811122299', '--json');
    expect(res.status).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ direction: 'inbound', status: 'in_progress', to: '+919811122299', agent_id: ws.agentId, from_number: ws.phoneNumber.slice(1) });
  });

  it('prints the API’s refusal (exit 1) and a usage mistake (exit 2)', async () => {
    const missing = await cli('call', 'show', ws.workspaceId, 'call_000000000000000000000000');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('error: Call not found.\nhint: not_found; --json prints the whole answer\n');

    const refused = await cli('sim', 'call', 'set', ws.workspaceId, '+919811100032', '--end', 'whenever');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe('error: end: expected one of agent_hangup, caller_hangup, idle, setup_error, never\nhint: invalid_argument; --json prints the whole answer\n');

    const mistyped = await cli('sim', 'call', 'set', ws.workspaceId, '+919811100032', '--rings', '3');
    expect(mistyped.status).toBe(2);
    expect(mistyped.stderr).toMatch(/^error: unknown flag for sim call set: --rings\nhint: it is written\n  sim call list <workspace_id>\n  sim call set <workspace_id> <destination> /);
  });
});
