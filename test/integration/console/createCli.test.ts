import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { callCollections } from '../../../src/calls/callStore';
import { fromRoot } from '../../../src/local/paths';
import { useTestApi } from '../../support/app';
import { insertContacts } from '../../support/campaigns';
import { storedCall } from '../../support/storedRecords';

/** `npm run console -- campaigns create | dues add | call list` (the compiled CLI) against a real API; needs `npm run build` first. */
describe('npm run console: create and recent calls', () => {
  const { api, ws } = useTestApi();
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    const { port } = api.server.address() as AddressInfo;
    env = { PATH: process.env.PATH, CONSOLE_URL: `http://127.0.0.1:${port}`, CONSOLE_TOKEN: api.config.CONSOLE_TOKEN };
  });

  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [fromRoot('dist/src/main/console.js'), ...args], { env, timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
      );
    });

  it('campaigns create: a WhatsApp draft for contacts (variables in order), a call campaign for a segment, the API’s refusals as they come', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 2);
    const made = await cli(
      'campaigns', 'create', ws.workspaceId,
      '--name', 'Cli sale',
      '--contact-ids', people.map((p) => p._id).join(','),
      '--template', 'order_update',
      '--variable', '{{contact.name}}', '--variable', 'A-1, B-2', '--variable', 'Friday',
      '--throttle-per-minute', '30',
      '--json',
    );
    expect(made.status).toBe(0);
    const draft = JSON.parse(made.stdout);
    expect(draft).toMatchObject({ name: 'Cli sale', channel: 'whatsapp', status: 'draft', version: 1 });
    const shown = JSON.parse((await cli('campaigns', 'show', ws.workspaceId, draft.campaign_id, '--json')).stdout);
    expect(shown).toMatchObject({
      audience: { kind: 'contact_ids', contact_id_count: 2 },
      template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1, B-2', 'Friday'] },
      schedule: { throttle_per_minute: 30 },
    });

    const voice = await cli(
      'campaigns', 'create', ws.workspaceId,
      '--name', 'Cli calls',
      '--channel', 'voice',
      '--agent-id', ws.agentId,
      '--tags', 'orders,VIP',
      '--purpose', 'Confirm {{name}}’s delivery',
      '--capture', '{"fields":[{"label":"Address correct?","type":"yes_no","required":true}]}',
      '--call-back-incomplete',
      '--send-window-start-hour', '11',
    );
    expect(voice.status).toBe(0);
    expect(voice.stdout).toMatch(/^channel\s+voice$/m);
    expect(voice.stdout).toMatch(/^status\s+draft$/m);
    expect(voice.stdout).toContain('"key":"address_correct"');
    // Each counter once (issue 35 §10): the funnel's own lines, no counters.* or states.* copies.
    expect(voice.stdout.split('\n').filter((l) => /^(\S+\.)?(sent|delivered|read|failed|skipped)\s/.test(l))).toEqual(['sent         0', 'delivered    0', 'read         0', 'failed       0', 'skipped      0'].map((l) => expect.stringMatching(new RegExp(`^${l.split(' ')[0]}\\s+0$`))));

    const refused = await cli('campaigns', 'create', ws.workspaceId, '--name', 'No template', '--tags', 'vip');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe('error: A WhatsApp campaign needs a template.\nhint: field template; invalid_argument (template_not_found); --json prints the whole answer\n');

    const noAudience = await cli('campaigns', 'create', ws.workspaceId, '--name', 'Nobody', '--template', 'order_update');
    expect(noAudience.status).toBe(2);
    expect(noAudience.stderr).toMatch(/^error: campaigns create needs its audience: --contact-ids cnt_…,cnt_… \(those contacts\) or --tags a,b/);
    const typo = await cli('campaigns', 'create', ws.workspaceId, '--name', 'Typo', '--tags', 'vip', '--templat', 'x');
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/^error: unknown flag for campaigns create: --templat\nhint: it is written\n  campaigns create /);
  });

  it('dues add: a subscriber with its next dues; the same phone again is the 409 it is', async () => {
    const added = await cli('dues', 'add', ws.workspaceId, '--name', 'Ravi', '--phone', '+919876511111', '--amount', '999', '--plan-name', 'Tuition', '--start-date', '2031-05-01');
    expect(added.status).toBe(0);
    expect(added.stdout).toMatch(/^subscriber_id\s+sub_\w+$/m);
    expect(added.stdout).toMatch(/^next_due_date\s+2031-05-01$/m);
    expect(added.stdout).toMatch(/^outstanding_total\s+1998$/m);

    const again = await cli('dues', 'add', ws.workspaceId, '--name', 'Ravi', '--phone', '+919876511111', '--amount', '999');
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^error: A subscriber with this phone number already exists\.\nhint: subscriber id sub_\w+; conflict \(duplicate_recipient\); --json prints the whole answer\n$/);

    const missing = await cli('dues', 'add', ws.workspaceId, '--name', 'Ravi', '--phone', '+919876511112');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^error: dues add needs --amount\nhint: it is written\n  dues add /);
  });

  it('call list: newest first with its filters, and how to ask for the next page', async () => {
    const start = Date.now() - 10_000;
    const ids = ['+919811122201', '+919811122202', '+919811122201'].map((to, i) => {
      const created = new Date(start + i);
      const metadata = i === 2 ? { campaign_id: `cmp_${'b'.repeat(24)}`, campaign_name: 'Cli calls' } : {};
      return storedCall(ws, created, to, { status: 'completed', metadata, outcome: 'caller_hangup' });
    });
    await callCollections(api.db).calls.insertMany(ids);

    const listed = await cli('call', 'list', ws.workspaceId, '--to', '+919811122201', '--limit', '1');
    expect(listed.status).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^call_id\s+created_at\s+to\s+status\s+outcome\s+result\s+campaign$/);
    // Times in the workspace's zone, named once under them (issue 35 §2).
    expect(lines[1]).toMatch(new RegExp(`^${ids[2]!._id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+\\+919811122201\\s+completed\\s+caller_hangup\\s+pending\\s+Cli calls \\(cmp_b{24}\\)$`));
    expect(lines[3]).toMatch(/^more: add --cursor \S+$/);
    expect(lines[4]).toMatch(/^\(times in \S+, the workspace's time zone\)$/);
    const cursor = lines[3]!.slice('more: add --cursor '.length);
    const next = await cli('call', 'list', ws.workspaceId, '--to', '+919811122201', '--limit', '1', '--cursor', cursor, '--json');
    expect(JSON.parse(next.stdout).items.map((c: { call_id: string }) => c.call_id)).toEqual([ids[0]!._id]);

    // The number in any form POST /api/v1/calls accepts: the console API reads it (issue 35).
    for (const local of ['09811122201', '98111 22201']) {
      const found = await cli('call', 'list', ws.workspaceId, '--to', local, '--json');
      expect({ local, found: JSON.parse(found.stdout).items.map((c: { call_id: string }) => c.call_id) }).toEqual({ local, found: [ids[2]!._id, ids[0]!._id] });
    }

    const bad = await cli('call', 'list', ws.workspaceId, '--status', 'done');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error: status: expected one of ringing, .+\nhint: invalid_argument; --json prints the whole answer\n$/);
  });
});
