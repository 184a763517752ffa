import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromRoot } from '../../../src/local/paths';
import { useTestApi } from '../../support/app';

/** `npm run console -- lists …` (the compiled CLI) against a real API; needs `npm run build` first. */
describe('npm run console -- lists', () => {
  const { api, ws } = useTestApi();
  let env: NodeJS.ProcessEnv;
  const dir = mkdtempSync(join(tmpdir(), 'lists-cli-'));

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

  it('uploads a CSV file as it is, shows the list and its first rows, lists the lists', async () => {
    const file = join(dir, 'march renewals.csv');
    // Excel's "CSV UTF-8": a byte-order mark, semicolons, CRLF.
    writeFileSync(file, '\uFEFFMobile;Name;Plan\r\n+919811100401;Asha;Gold\r\n+919811100402;Ravi Kumar;Silver\r\n');
    const uploaded = await cli('lists', 'upload', ws.workspaceId, file, '--phone-column', 'Mobile');
    expect(uploaded.stderr).toBe('');
    expect(uploaded.status).toBe(0);
    const id = /^list_id\s+(lst_[0-9a-f]{24})$/m.exec(uploaded.stdout)![1]!;
    expect(uploaded.stdout).toBe(
      [
        `list_id       ${id}`,
        'name          march renewals',
        'rows          2',
        'phone_column  mobile',
        'variables     {{mobile}} {{name}} {{plan}}',
        '',
        'first 2 rows:',
        'row  mobile         name        plan',
        '2    +919811100401  Asha        Gold',
        '3    +919811100402  Ravi Kumar  Silver',
        '',
      ].join('\n'),
    );

    const listed = await cli('lists', 'list', ws.workspaceId);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^list_id\s+name\s+rows\s+phone_column\s+variables\s+created_at\n/);
    expect(listed.stdout).toContain(`${id}  march renewals  2     mobile        {{mobile}},{{name}},{{plan}}`);

    const shown = await cli('lists', 'show', ws.workspaceId, id, '--json');
    expect(JSON.parse(shown.stdout)).toMatchObject({ list_id: id, file_name: 'march renewals.csv', rows: 2 });
  });

  it('prints the refusal with its reason and row; a file it cannot read and an unknown flag are usage errors', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, 'Name,City\nAsha,Pune\n');
    const refused = await cli('lists', 'upload', ws.workspaceId, file, '--name', 'Bad');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      'error: No column is named "phone"; the columns are name, city. Name the phone column "phone", or say which column holds the numbers.\n' +
        'hint: row 1; invalid_argument (no_phone_column); --json prints the whole answer\n',
    );
    const missing = await cli('lists', 'upload', ws.workspaceId, join(dir, 'none.csv'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^error: cannot read .*none\.csv: ENOENT\nhint: /);
    const flag = await cli('lists', 'upload', ws.workspaceId, file, '--phone', 'x');
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/^error: unknown flag for lists upload: --phone\nhint: /);
  });
});
