import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromRoot } from '../../../src/local/paths';
import { useTestApi } from '../../support/app';
import { makePdf } from '../../support/pdf';

/** `npm run console -- knowledge …` and `tools …` (the compiled CLI) against a real API; needs `npm run build` first. */
describe('npm run console -- knowledge / tools', () => {
  const { api, ws } = useTestApi();
  let env: NodeJS.ProcessEnv;
  const dir = mkdtempSync(join(tmpdir(), 'knowledge-cli-'));

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

  it('uploads a PDF and an FAQ CSV by their extensions, lists, searches and deletes them', async () => {
    const pdf = join(dir, 'warranty terms.pdf');
    writeFileSync(pdf, makePdf([['Every kettle carries a two year warranty.']]));
    const faq = join(dir, 'faq.csv');
    writeFileSync(faq, 'question,answer\nHow long does a refund take?,Five working days.\n');

    const uploaded = await cli('knowledge', 'upload', ws.workspaceId, pdf);
    expect(uploaded.stderr).toBe('');
    expect(uploaded.status).toBe(0);
    const id = /^document_id\s+(kdoc_[0-9a-f]{24})$/m.exec(uploaded.stdout)![1]!;
    expect(uploaded.stdout).toMatch(/^name\s+warranty terms$/m);
    expect(uploaded.stdout).toMatch(/^format\s+pdf$/m);
    expect((await cli('knowledge', 'upload', ws.workspaceId, faq, '--name', 'Customer FAQ')).status).toBe(0);

    const listed = await cli('knowledge', 'list', ws.workspaceId);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^document_id\s+name\s+format\s+passages\s+bytes\s+created_at\n/);
    expect(listed.stdout).toContain(`${id}  warranty terms  pdf`);
    expect(listed.stdout).toContain('Customer FAQ    faq_csv');

    const searched = await cli('knowledge', 'search', ws.workspaceId, '--query', 'kettle warranty');
    expect(searched.status).toBe(0);
    expect(searched.stdout).toBe(
      [`trail: Searched the knowledge documents for "kettle warranty": used "warranty terms" (${id})`, '', `warranty terms (${id}) — page 1`, 'Every kettle carries a two year warranty.', ''].join('\n'),
    );

    const deleted = await cli('knowledge', 'delete', ws.workspaceId, id);
    expect(deleted.status).toBe(0);
    expect(deleted.stdout).toMatch(/^deleted\s+true$/m);
    const again = await cli('knowledge', 'show', ws.workspaceId, id);
    expect(again.status).toBe(1);
    expect(again.stderr).toBe('error: Knowledge document not found.\nhint: not_found; --json prints the whole answer\n');
  });

  it('prints a refusal with its reason; an unknown extension is a usage error', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'q,a\nx,y\n');
    const refused = await cli('knowledge', 'upload', ws.workspaceId, bad);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe('error: An FAQ file needs a header row with the columns question and answer.\nhint: invalid_argument (invalid_faq_csv); --json prints the whole answer\n');
    const odd = join(dir, 'notes.docx');
    writeFileSync(odd, 'x');
    const usage = await cli('knowledge', 'upload', ws.workspaceId, odd);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^error: cannot tell the format of .*notes\.docx: name it with --format text\|markdown\|pdf\|faq_csv\nhint: it is written\n  knowledge upload <workspace_id> <file> /);
  });

  it('declares a tool from a schema file, shows its secret once, lists and deletes it', async () => {
    const schema = join(dir, 'order.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }));
    const added = await cli('tools', 'add', ws.workspaceId, '--name', 'lookup_order', '--description', 'Look up an order.', '--url', 'http://127.0.0.1:9/orders', '--parameters', `@${schema}`, '--timeout-ms', '4000');
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    expect(added.stdout).toMatch(/^secret\s+whsec_\S+$/m);
    expect(added.stdout).toMatch(/^parameters\.required\s+order_id$/m);
    const listed = await cli('tools', 'list', ws.workspaceId);
    expect(listed.stdout).toBe(['name          url                        timeout_ms  description', 'lookup_order  http://127.0.0.1:9/orders  4000        Look up an order.', ''].join('\n'));
    const flat = await cli('tools', 'add', ws.workspaceId, '--name', 'flat', '--description', 'd', '--url', 'http://127.0.0.1:9/x', '--parameters', '{"type":"string"}');
    expect(flat.status).toBe(1);
    expect(flat.stderr).toBe('error: parameters must be an object schema ("type": "object").\nhint: invalid_argument (invalid_parameters_schema); --json prints the whole answer\n');
    expect((await cli('tools', 'delete', ws.workspaceId, 'lookup_order')).status).toBe(0);
    expect((await cli('tools', 'list', ws.workspaceId)).stdout).toBe('(none)\n');
  });
});
