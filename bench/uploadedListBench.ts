import { performance } from 'node:perf_hooks';
import { recordOptOut } from '../src/messaging/optOut';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { cpuSeconds, loadAverage } from './benchStats';
import { BENCH_CONSOLE_TOKEN, startEmbeddedSystem } from './embeddedSystem';

/**
 * `npx tsc -p tsconfig.bench.json && node dist/bench/uploadedListBench.js` (after
 * `npx tsc -p tsconfig.build.json`): an uploaded list of LIST_ROWS (50,000) people through the
 * console's HTTP routes on the embedded system (FerretDB on SQLite, Temporal, worker, API):
 * upload the CSV, create a WhatsApp campaign on it, then time evaluate, the target being
 * under 10 s (docs/campaigns.md "Uploaded lists"). The file has bad rows of every kind
 * (no number, a short number, a repeated number, an opted-out number, an empty variable)
 * so every exclusion rule runs; LIST_OPT_OUTS numbers are on the opt-out list. Prints each
 * step's wall time with the API's and FerretDB's CPU, and the machine's load.
 */

const rows = Number(process.env.LIST_ROWS ?? 50_000);
const optOuts = Number(process.env.LIST_OPT_OUTS ?? 1_000);
const TENANT = 'ws_listbench';

/**
 * Row i's number, written as people write them: odd rows `+91 98…` (E.164), even rows the
 * national form with a space (`98xxx xxxxx`, read in the workspace's country). Every 100th
 * row repeats the row before's number, every 250th has none, every 333rd is too short, and
 * every 400th (from row 17) has no city, a template variable.
 */
function csv(): string {
  const lines = ['Phone,Name,Order,City'];
  for (let i = 0; i < rows; i++) {
    const digits = `98${String(i % 100 === 99 ? i - 1 : i).padStart(8, '0')}`;
    const written = i % 2 === 0 ? `${digits.slice(0, 5)} ${digits.slice(5)}` : `+91${digits}`;
    const phone = i % 250 === 249 ? '' : i % 333 === 332 ? '12345' : written;
    lines.push(`${phone},Person ${i},A-${i},${i % 400 === 17 ? '' : 'Pune'}`);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const system = await startEmbeddedSystem({
    name: 'bench-lists',
    seed: async (db) => {
      await seedDemoWorkspace(db, { workspaceId: TENANT, name: 'List bench', environment: 'test' });
    },
  });
  const pids = { api: system.pids.api!, ferretdb: system.pids.ferretdb! };
  const headers = { authorization: `Bearer ${BENCH_CONSOLE_TOKEN}` };
  const base = `${system.base!}/console/v1/workspaces/${TENANT}`;

  async function timed<T>(name: string, work: () => Promise<T>): Promise<{ result: T; seconds: number }> {
    const cpu = { api: cpuSeconds(pids.api), ferretdb: cpuSeconds(pids.ferretdb) };
    const started = performance.now();
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `${name.padEnd(40)} ${seconds.toFixed(2)} s   API CPU ${(cpuSeconds(pids.api) - cpu.api).toFixed(2)} s   FerretDB CPU ${(cpuSeconds(pids.ferretdb) - cpu.ferretdb).toFixed(2)} s   load ${loadAverage()}\n`,
    );
    return { result, seconds };
  }

  async function call(method: string, path: string, body: string | object | undefined, contentType = 'application/json'): Promise<Record<string, unknown>> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  try {
    process.stdout.write(`uploaded list bench: ${rows} rows, ${optOuts} opt-outs; load before ${loadAverage()}\n`);
    const at = new Date();
    for (let i = 0; i < optOuts; i++) {
      await recordOptOut(system.db, { tenantId: TENANT, phone: `+9198${String(i * 7).padStart(8, '0')}`, sourceMessageId: `msg_bench${i}`, at });
    }
    const file = csv();
    process.stdout.write(`file ${(Buffer.byteLength(file) / 1024 / 1024).toFixed(2)} MB\n`);
    const uploaded = await timed('upload (parse, store)', () => call('POST', '/lists?name=Bench', file, 'text/csv'));
    const listId = uploaded.result.list_id as string;
    const created = await call('POST', '/campaigns', {
      name: 'List bench',
      audience: { kind: 'uploaded_list', list_id: listId },
      template: { name: 'order_update', variables: ['{{name}}', '{{order}}', '{{city}}'] },
    });
    const id = created.campaign_id as string;
    const evaluations: number[] = [];
    let eligible = 0;
    let excluded: unknown = null;
    // The first is cold (nothing cached in the API); the ones after reuse its rows while the list is unchanged.
    for (const label of ['evaluate (cold)', 'evaluate (again)', 'evaluate (again)']) {
      const { result, seconds } = await timed(label, () => call('POST', `/campaigns/${id}/evaluate`, undefined));
      evaluations.push(seconds);
      eligible = result.eligible as number;
      excluded = result.excluded;
    }
    process.stdout.write(`eligible ${eligible} of ${rows}; excluded ${JSON.stringify(excluded)}\n`);
    process.stdout.write(`target: evaluate under 10 s for 50,000 rows: cold ${evaluations[0]!.toFixed(2)} s -> ${evaluations[0]! < 10 ? 'met' : 'NOT met'}\n`);
  } finally {
    await system.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
