import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fromRoot } from '../../../src/local/paths';
import { useTestApi } from '../../support/app';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, zoneOpenAt } from '../../support/campaigns';

/** `npm run console -- campaigns …` (the compiled CLI) against a real API and worker; needs `npm run build` first. */
describe('npm run console -- campaigns', () => {
  const { api, ws } = useTestApi({ worker: { whatsapp: new CountingWhatsAppProvider() } });
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    const { port } = api.server.address() as AddressInfo;
    env = { PATH: process.env.PATH, CONSOLE_URL: `http://127.0.0.1:${port}`, CONSOLE_TOKEN: api.config.CONSOLE_TOKEN };
  });

  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [fromRoot('dist/src/main/console.js'), ...args], { env, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
      );
    });

  it('lists, launches, watches to the end (plain lines when not a terminal) and archives', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 3);
    const c = await insertCampaignDraft(api.db, ws.workspaceId, {
      contactIds: people.map((p) => p._id),
      schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) },
    });

    const list = await cli('campaigns', 'list', ws.workspaceId);
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/^campaign_id\s+name\s+status\s+version\s+recipients\s+sent\s+delivered\s+read\s+failed\s+skipped\s+updated_at\n/);
    expect(list.stdout).toContain(`${c._id}  Broadcast  draft   1        0           0`);

    const refused = await cli('campaigns', 'pause', ws.workspaceId, c._id);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^error: campaigns pause needs --expected-version/);

    const launched = await cli('campaigns', 'launch', ws.workspaceId, c._id, '--expected-version', '1', '--confirm-recipients', '3');
    expect(launched.status).toBe(0);
    expect(launched.stdout).toMatch(/^status\s+running$/m);
    expect(launched.stdout).toMatch(/^recipients\s+3$/m);

    const watched = await cli('campaigns', 'watch', ws.workspaceId, c._id, '--interval', '0.3');
    expect(watched.status).toBe(0);
    const lines = watched.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \((.+)\) completed 3\/3 \(100%\) sent=3 delivered=0 read=0 failed=0 skipped=0 finish: finished \(completed\) \| Completed \d\d:\d\d today \(\1\): 3 sent, 0 delivered, 0 read, 0 failed, 0 skipped\.$/,
    );
    expect(watched.stdout).not.toContain('\x1b[');

    // recipients: each person by contact id and name (it printed `contact_id -` and phones only).
    const recipients = await cli('campaigns', 'recipients', ws.workspaceId, c._id);
    expect(recipients.status).toBe(0);
    const [head, ...rows] = recipients.stdout.trim().split('\n');
    expect(head).toMatch(/^position\s+contact_id\s+name\s+to\s+state\s+reason\s+state_at$/);
    // One clock: the times in the workspace's zone, named once under them (never UTC).
    const zone = (await api.db.collection<{ _id: string; timezone: string }>('workspaces').findOne({ _id: ws.workspaceId }))!.timezone;
    expect(rows.pop()).toBe(`(times in ${zone}, the workspace's time zone)`);
    expect(rows.map((r) => r.split(/\s{2,}/).slice(0, 5))).toEqual(people.map((p, i) => [String(i), p._id, p.name, p.phone, 'sent']));
    for (const r of rows) expect(r).toMatch(/  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    // show: what the run did first, then the record.
    const shown = await cli('campaigns', 'show', ws.workspaceId, c._id);
    expect(shown.status).toBe(0);
    const [now, late, blank] = shown.stdout.split('\n');
    expect(now).toMatch(/^now: Completed \d\d:\d\d today \(.+\): 3 sent, 0 delivered, 0 read, 0 failed, 0 skipped\.$/);
    expect([late, blank]).toEqual(['     Delivery and read statuses that arrive late are still counted for a day.', '']);
    expect(shown.stdout).toMatch(/^status\s+completed$/m);
    expect(shown.stdout).not.toContain('explanation');

    const archived = await cli('campaigns', 'archive', ws.workspaceId, c._id, '--json');
    expect(archived.status).toBe(0);
    expect(JSON.parse(archived.stdout)).toMatchObject({ campaign_id: c._id, status: 'archived' });
  }, 90_000);

  it('changes the campaign settings and prints the API’s refusal', async () => {
    const set = await cli('campaigns', 'settings', ws.workspaceId, '--throttle-per-minute', '120', '--timezone', 'Europe/London');
    expect(set.status).toBe(0);
    expect(set.stdout).toMatch(/^throttle_per_minute\s+120$/m);
    expect(set.stdout).toMatch(/^effective_timezone\s+Europe\/London$/m);

    const bad = await cli('campaigns', 'settings', ws.workspaceId, '--throttle-per-minute', '601');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error: throttle_per_minute: .+\nhint: invalid_argument; --json prints the whole answer\n$/);

    const missing = await cli('campaigns', 'watch', ws.workspaceId, 'cmp_000000000000000000000000');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('error: Campaign not found.\nhint: not_found; --json prints the whole answer\n');
  });
});
