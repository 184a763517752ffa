import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { conversationAgentWorkflowId } from '../src/agents/contracts';
import { conversationIdFor } from '../src/conversations/store';
import { conversationMessagesCollection } from '../src/conversations';
import { createBusinessTool } from '../src/businessTools';
import { collections } from '../src/db/collections';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { distribution, formatDistribution, loadAverage } from './benchStats';
import { startEmbeddedSystem } from './embeddedSystem';
import { cpuMeter, formatPerUnit, perUnit, writeBenchFigures } from './processCpu';
import { formatProfile, summariseProfiles } from './cpuProfileSummary';
import { formatOpTally, opTallyPerUnit } from './opTallyReport';
import { formatThreadCpu, markThreads, threadCpuSince } from './threadCpu';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_TARGETS } from './targets';

/**
 * `npm run bench:agents`: BENCH_CONVERSATIONS (200) WhatsApp conversations at once, each
 * BENCH_TURNS (5) turns, against the embedded defaults (FerretDB on SQLite, the Temporal dev
 * server, the real worker and API processes from dist/). Each turn is an inbound message
 * through the signed Cloud API webhook; the worker's chat agent asks a fake OpenAI-compatible
 * model (this process, answering after BENCH_MODEL_MS, 300) which asks for one tool, runs it,
 * asks again, and the reply reaches a fake Graph API (this process). The tool it asks for is
 * the workspace's declared business tool `look_up_order`: a signed POST to an order service in
 * this process that answers at once. Each person waits BENCH_THINK_MS (8,000, jittered ±50%)
 * after a reply before writing again, as people do; the conversations start spread over one
 * such wait. Printed beside issue 33's
 * targets: the latency we add (inbound → reply, less two model calls and the burst window),
 * the CPU per turn of our processes (the fake model and Graph excluded: they are this
 * process), Temporal history events per turn, and the API's and the worker's database commands
 * per turn (BENCH_OP_TALLY=1 lists them by shape, 0 counts none). Figures go to
 * .bench/agents-<time>.json.
 */

const conversations = Number(process.env.BENCH_CONVERSATIONS ?? AGENT_TARGETS.conversations);
const turns = Number(process.env.BENCH_TURNS ?? AGENT_TARGETS.turns);
const modelMs = Number(process.env.BENCH_MODEL_MS ?? AGENT_TARGETS.modelMs);
const quietMs = 100;
/** How long a person takes to read the answer and write again (each wait jittered ±50%, seeded). */
const thinkMs = Number(process.env.BENCH_THINK_MS ?? AGENT_TARGETS.thinkMs);
const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 600) * 1000;
/**
 * Conversations (of BENCH_TURNS turns, as the measured ones) before the meter starts (1: the
 * figures stay comparable with earlier runs). More lets the worker's and API's JIT finish
 * compiling first: in a fresh process V8 is still optimising through the measured turns
 * (docs/decisions/performance.md, "Where a turn's CPU goes").
 */
const warmups = Math.max(1, Number(process.env.BENCH_WARMUP_CONVERSATIONS ?? 1));
const APP_SECRET = 'bench-app-secret';
const TENANT = 'ws_bench_agents';

const say = (line: string) => process.stdout.write(`${line}\n`);
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>));
  });
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

async function main(): Promise<void> {
  // The fake model: a tool call first, the answer once the tool's result is in; always after modelMs.
  let modelCalls = 0;
  const model = createServer((req, res) => {
    void readBody(req).then((body) => {
      modelCalls++;
      const messages = body.messages as { role: string }[];
      const answered = messages.some((m) => m.role === 'tool');
      const message = answered
        ? { role: 'assistant', content: 'Your order left the warehouse and arrives Friday.' }
        : { role: 'assistant', content: null, tool_calls: [{ id: `call_${modelCalls}`, type: 'function', function: { name: 'look_up_order', arguments: '{"order_id":"4821"}' } }] };
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ id: `c${modelCalls}`, object: 'chat.completion', created: 0, model: 'bench', choices: [{ index: 0, message, finish_reason: answered ? 'stop' : 'tool_calls' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
        );
      }, modelMs);
    });
  });
  // The workspace's order service, called by the agent through its declared business tool.
  let toolCalls = 0;
  const orders = createServer((req, res) => {
    void readBody(req).then(() => {
      toolCalls++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'Order 4821 left the warehouse and arrives Friday.' }));
    });
  });
  // The fake Graph API: accepts every message; a text to a customer resolves that customer's waiter.
  const waiters = new Map<string, () => void>();
  let sent = 0;
  const graph = createServer((req, res) => {
    void readBody(req).then((body) => {
      if (body.type === 'text') {
        const to = String(body.to);
        waiters.get(to)?.();
        waiters.delete(to);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.BENCH${++sent}` }] }));
    });
  });
  const profileDir = mkdtempSync(join(tmpdir(), 'agents-profile-'));
  // The database commands per turn of the API and the worker (src/observability/databaseOpTally.ts); BENCH_OP_TALLY=1 lists them by shape, 0 counts nothing.
  const tallyPrefix = process.env.BENCH_OP_TALLY === '0' ? null : join(mkdtempSync(join(tmpdir(), 'agents-tally-')), 'ops');
  let window: { fromUs: number; toUs: number } | null = null;
  const modelUrl = await listen(model);
  const graphUrl = await listen(graph);
  const ordersUrl = await listen(orders);

  const system = await startEmbeddedSystem({
    name: 'bench-agents',
    taskQueue: 'bench-agents',
    env: {
      NODE_ENV: 'development',
      WHATSAPP_PROVIDER: 'cloud',
      WHATSAPP_CLOUD_BASE_URL: `${graphUrl}/v21.0`,
      WHATSAPP_CLOUD_ACCESS_TOKEN: 'bench-token',
      WHATSAPP_CLOUD_PHONE_NUMBER_ID: '1001',
      WHATSAPP_CLOUD_APP_SECRET: APP_SECRET,
      AGENT_MODEL_PROVIDER: 'openai',
      AGENT_MODEL_BASE_URL: `${modelUrl}/v1`,
      AGENT_MODEL_API_KEY: 'sk-bench',
      AGENT_MODEL: 'bench',
      AGENT_BURST_QUIET_MS: String(quietMs),
      // The bench's own load: 200 customers write from one address.
      RATE_LIMIT_STORE: 'memory',
      ...(tallyPrefix ? { MONGODB_OP_TALLY: tallyPrefix, MONGODB_OP_TALLY_EVERY_MS: '1000' } : {}),
    },
    workerReadyMs: 180_000,
    // BENCH_CPU_PROFILE=1: where the worker's and the API's CPU goes, printed after the figures.
    cpuProfiles: process.env.BENCH_CPU_PROFILE ? { dir: profileDir, processes: ['worker', 'api'] } : null,
    temporalClient: true,
    seed: async (db) => {
      const seeded = await seedDemoWorkspace(db, { workspaceId: TENANT, name: 'bench agents', environment: 'test' });
      await createBusinessTool(
        db,
        TENANT,
        { name: 'look_up_order', description: 'Where an order is.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }, url: `${ordersUrl}/orders`, timeout_ms: 5_000 },
        true,
        new Date(),
      );
      return (await collections(db).senders.findOne({ _id: seeded.senderId }))!.phone.replace(/\D/g, '');
    },
  });
  const watchdog = setTimeout(() => {
    say(`[agents] gave up after ${timeoutMs / 1000} s`);
    void system.stop().finally(() => process.exit(1));
  }, timeoutMs);
  try {
    const senderDigits = system.seeded;
    let inbound = 0;
    const write = async (from: string, text: string) => {
      const payload = {
        object: 'whatsapp_business_account',
        entry: [{ id: 'WABA1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: senderDigits, phone_number_id: '1001' }, contacts: [{ profile: { name: 'Bench' }, wa_id: from }], messages: [{ from, id: `wamid.in.${++inbound}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }] } }] }],
      };
      const raw = JSON.stringify(payload);
      // A 503 (the database not answering in time on a saturated machine) is delivered again, as
      // the Cloud API retries a failed delivery; counted and printed, the latency kept from the first.
      for (let attempt = 1; ; attempt++) {
        const res = await fetch(`${system.base}/webhooks/whatsapp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}` },
          body: raw,
        });
        if (res.ok) return;
        const said = await res.text();
        if (res.status !== 503 || attempt >= 5) throw new Error(`webhook answered ${res.status}: ${said}`);
        webhookRetries++;
        await pause(1_000);
      }
    };
    let webhookRetries = 0;
    const latencies: number[] = [];
    /** How long the webhook request itself took (the API's share: record the turn, signal the workflow). */
    const webhookMs: number[] = [];
    // A seeded jitter, so two runs wait alike.
    let seed = 42;
    const jitter = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return 0.5 + seed / 2 ** 31;
    };
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const conversation = async (i: number, startAfterMs = 0) => {
      const from = `9197${String(i).padStart(8, '0')}`;
      await pause(startAfterMs);
      for (let turn = 0; turn < turns; turn++) {
        if (turn > 0) await pause(thinkMs * jitter());
        const replied = new Promise<void>((resolve) => waiters.set(from, resolve));
        const started = performance.now();
        await write(from, `Where is my order 4821? (${turn + 1})`);
        webhookMs.push(performance.now() - started);
        await replied;
        latencies.push(performance.now() - started);
      }
    };

    say(`[agents] ${conversations} conversations × ${turns} turns, one tool call each, model ${modelMs} ms a call, burst window ${quietMs} ms, a person's wait ${thinkMs} ms ±50%; load average ${loadAverage()}`);
    // Warm-up (compiles paths, opens connections): whole conversations, spread over a person's wait when several.
    await Promise.all(Array.from({ length: warmups }, (_, i) => conversation(conversations + 1 + i, warmups > 1 ? (thinkMs * i) / warmups : 0)));
    latencies.length = 0;
    webhookMs.length = 0;
    const meter = cpuMeter(system.pids, ['temporal', 'ferretdb']);
    const mark = meter.mark();
    const nodePids = { worker: system.pids.worker!, api: system.pids.api! };
    const threadMark = markThreads(nodePids);
    await Promise.all(Array.from({ length: conversations }, (_, i) => conversation(i, (thinkMs * i) / conversations)));
    const use = meter.since(mark);
    window = use.window;
    const turnCount = conversations * turns;
    const byThread = threadCpuSince(threadMark, nodePids, turnCount);
    /** Counted from the start, the warm-up's turns included: the model's and tool's calls, the database commands. */
    const allTurns = turnCount + warmups * turns;

    const floor = 2 * modelMs + quietMs;
    const added = distribution(latencies.map((ms) => Math.max(0, ms - floor)));
    const ours = ['api', 'worker', 'temporal', 'ferretdb'].reduce((sum, name) => sum + (use.cpu_seconds[name] ?? 0), 0);
    const cpuPerTurnMs = (ours / turnCount) * 1000;
    let events = 0;
    for (let i = 0; i < conversations; i++) {
      const history = await system.temporalClient!.workflow.getHandle(conversationAgentWorkflowId(conversationIdFor(TENANT, 'whatsapp', `9197${String(i).padStart(8, '0')}`))).fetchHistory();
      events += history.events?.length ?? 0;
    }
    const eventsPerTurn = events / turnCount;
    if (process.env.BENCH_SHOW_HISTORY) {
      const history = await system.temporalClient!.workflow.getHandle(conversationAgentWorkflowId(conversationIdFor(TENANT, 'whatsapp', `9197${String(0).padStart(8, '0')}`))).fetchHistory();
      const first = Number(history.events![0]!.eventTime!.seconds) * 1000 + history.events![0]!.eventTime!.nanos! / 1e6;
      for (const e of history.events!) say(`    ${String(e.eventId)} +${(Number(e.eventTime!.seconds) * 1000 + e.eventTime!.nanos! / 1e6 - first).toFixed(0)} ms ${String(e.eventType)}`);
    }

    say(`  inbound → reply: ${formatDistribution(distribution(latencies))}`);
    say(`  of which the webhook request (record the turn, signal the workflow): ${formatDistribution(distribution(webhookMs))}${webhookRetries > 0 ? `; ${webhookRetries} deliveries answered 503 and sent again` : ''}`);
    say(`  added by us (less ${floor} ms: two model calls and the burst window): ${formatDistribution(added)}`);
    const p99 = added.p99 ?? Infinity;
    say(`  p99 added ${p99.toFixed(0)} ms (target ≤ ${AGENT_TARGETS.p99AddedMs} ms): ${verdict(p99 <= AGENT_TARGETS.p99AddedMs)}`);
    say(formatPerUnit(use, turnCount, 'turn'));
    say(`  CPU per turn, ours (API, worker, Temporal, FerretDB): ${cpuPerTurnMs.toFixed(1)} ms (target ≤ ${AGENT_TARGETS.cpuPerTurnMs} ms): ${verdict(cpuPerTurnMs <= AGENT_TARGETS.cpuPerTurnMs)}`);
    say(formatThreadCpu(byThread, 'turn'));
    say(`  history events per turn: ${eventsPerTurn.toFixed(1)} (target ≤ ${AGENT_TARGETS.historyEventsPerTurn}): ${verdict(eventsPerTurn <= AGENT_TARGETS.historyEventsPerTurn)}`);
    say(`  model calls ${modelCalls} (expected ${2 * allTurns}), tool calls ${toolCalls} (expected ${allTurns}), replies ${latencies.length}`);
    // A tool call the order service never saw is a failed run in the turn's trail (its reason there); a count short of them is the bench's.
    const failedRuns = await conversationMessagesCollection(system.db)
      .find({ tenant_id: TENANT, kind: 'trail', text: { $regex: 'look_up_order failed' } }, { projection: { text: 1 } })
      .toArray();
    if (failedRuns.length > 0 || toolCalls !== allTurns) say(`  tool runs failed ${failedRuns.length}${failedRuns.length > 0 ? `: ${[...new Set(failedRuns.map((m) => m.text))].slice(0, 5).join(' | ')}` : ''}`);
    const figures: Record<string, unknown> = {
      conversations,
      turns,
      warmup_conversations: warmups,
      model_ms: modelMs,
      burst_quiet_ms: quietMs,
      think_ms: thinkMs,
      tool_calls: toolCalls,
      tool_runs_failed: failedRuns.length,
      latency_ms: distribution(latencies),
      webhook_ms: distribution(webhookMs),
      added_ms: added,
      cpu: use,
      cpu_per_turn_ms: perUnit(use, turnCount),
      cpu_per_turn_ours_ms: cpuPerTurnMs,
      cpu_per_turn_by_thread_ms: byThread,
      history_events_per_turn: eventsPerTurn,
      targets: AGENT_TARGETS,
    };
    if (tallyPrefix) {
      // Counted from the start (the warm-up's turns included); written every second.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const commands = opTallyPerUnit(tallyPrefix, allTurns);
      figures.db_commands_per_turn = commands;
      say(`  database commands per turn: ${Object.entries(commands).map(([app, n]) => `${app} ${n.toFixed(1)}`).join(', ')}`);
      if (process.env.BENCH_OP_TALLY === '1') say(`  by shape (BENCH_OP_TALLY=1):\n${formatOpTally(tallyPrefix, allTurns, 'turn')}`);
    }
    say(`  figures: ${writeBenchFigures('agents', figures)}`);
  } finally {
    clearTimeout(watchdog);
    await system.stop();
    if (process.env.BENCH_CPU_PROFILE) {
      for (const name of ['worker', 'api']) for (const summary of summariseProfiles(join(profileDir, name), window)) say(formatProfile(name, summary));
    }
    for (const server of [model, graph, orders]) {
      server.closeAllConnections();
      server.close();
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
