import { performance } from 'node:perf_hooks';
import type { Db } from 'mongodb';
import { workspaceOverview } from '../api/console/overview';
import { callPersonNames } from '../api/console/personNames';
import { listCalls } from '../src/calls/callList';
import { callCollections, newCallDoc, type CallDoc } from '../src/calls/callStore';
import { tallyCallEnd } from '../src/calls/callTally';
import { collections } from '../src/db/collections';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { newId } from '../src/domain/ids';
import { outboundMessagesCollection, type OutboundMessageDoc } from '../src/messaging/outboundMessages';
import { distribution, formatDistribution, loadAverage } from './benchStats';
import { withBenchFerret } from './benchFerret';

/**
 * `npm run bench:overview`: the console overview's reads (api/console/overview.ts, all that
 * GET …/overview does besides JSON) and, for comparison, the Calls page's first page with
 * names (a scan of the calls on FerretDB), on the embedded FerretDB, for a workspace with
 * BENCH_CALLS (3,000) calls ended today (each with a 16-turn transcript and counted into the
 * day's tally as finishCall does), as many WhatsApp messages, and another workspace of the
 * same size beside it (FerretDB scans every workspace's documents for a non-`_id` filter).
 * Sequential, BENCH_ROUNDS (20) rounds of the overview, BENCH_SCAN_ROUNDS (3) of the Calls page.
 */

const callsPerWorkspace = Number(process.env.BENCH_CALLS ?? 3_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
const scanRounds = Number(process.env.BENCH_SCAN_ROUNDS ?? 3);

const transcript = Array.from({ length: 16 }, (_, i) => ({
  role: i % 2 === 0 ? ('model' as const) : ('user' as const),
  text: i % 2 === 0 ? 'Will someone be at home tomorrow morning between nine and eleven to sign for the parcel?' : 'Yes, my brother will be there all morning.',
  at_seconds: i * 3,
}));

async function seed(db: Db, tenantId: string, agentId: string, now: Date): Promise<void> {
  const start = now.getTime() - 3 * 3_600_000;
  for (let from = 0; from < callsPerWorkspace; from += 500) {
    const calls: CallDoc[] = [];
    const messages: OutboundMessageDoc[] = [];
    for (let i = from; i < Math.min(callsPerWorkspace, from + 500); i++) {
      const at = new Date(start + i * 1_000);
      calls.push({
        ...newCallDoc({
          _id: newId('call', at),
          tenant_id: tenantId,
          direction: 'outbound',
          status: 'completed',
          to: `+9198${String(10_000_000 + i).slice(-8)}`,
          from_number: '918000000000',
          agent_id: agentId,
          requested_agent_id: null,
          deployment_id: 'dep_bench',
          ring_seconds: 30,
          max_call_seconds: 600,
          recording: false,
          created_at: at,
          metadata: i % 3 === 0 ? { campaign_id: 'cmp_bench', campaign_name: 'Bench', person_name: `Person ${i}` } : {},
        }),
        outcome: i % 7 === 0 ? 'no_answer' : 'agent_hangup',
        duration_seconds: 48,
        purpose: 'your delivery tomorrow',
        transcript,
      });
      messages.push({
        _id: `wamid.${tenantId}.${i}`,
        tenant_id: tenantId,
        sender_id: 'snd_bench',
        to: `+9198${String(10_000_000 + i).slice(-8)}`,
        conversation_id: 'con_bench',
        transcript_message_id: `msg_${i}`,
        billed: null,
        status: i % 5 === 0 ? 'read' : 'delivered',
        status_at: at,
        created_at: at,
        kind: 'template',
        template: { name: 'delivery', language: 'en' },
        metadata: {},
        provider: 'simulator',
      });
    }
    await callCollections(db).calls.insertMany(calls);
    await outboundMessagesCollection(db).insertMany(messages);
    // Each call's end counted into the day's tally, as finishCall does, eight at a time (they race for the next step).
    for (let k = 0; k < calls.length; k += 8) {
      await Promise.all(
        calls.slice(k, k + 8).map((c) => tallyCallEnd(db, c, { status: c.status, outcome: c.outcome, answered: true, durationSeconds: c.duration_seconds ?? 0, endedAt: now })),
      );
    }
  }
}

async function measure(name: string, op: () => Promise<unknown>, times = rounds): Promise<void> {
  const latencies: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await op();
    latencies.push(Math.round(performance.now() - t));
  }
  process.stdout.write(`${name.padEnd(34)} ${formatDistribution(distribution(latencies))}\n`);
}

async function main(): Promise<void> {
  await withBenchFerret('bench-overview-', async ({ mongo }) => {
    const db = mongo.db('bench');
    const now = new Date();
    const measured = await seedDemoWorkspace(db, { workspaceId: 'ws_bench', name: 'Bench', environment: 'test' });
    const other = await seedDemoWorkspace(db, { workspaceId: 'ws_other', name: 'Other', environment: 'test' });
    // Today, in a zone where three hours ago is still today whatever the hour here.
    await collections(db).workspaces.updateOne({ _id: 'ws_bench' }, { $set: { timezone: 'Etc/GMT+12' } });
    const seedStarted = performance.now();
    await seed(db, 'ws_bench', measured.agentId, now);
    await seed(db, 'ws_other', other.agentId, now);
    process.stdout.write(
      `FerretDB (SQLite): ${callsPerWorkspace} calls and ${callsPerWorkspace} messages in each of two workspaces (seeded in ${Math.round((performance.now() - seedStarted) / 1000)} s); ${rounds} sequential rounds; load average ${loadAverage()}\n`,
    );
    const workspace = (await collections(db).workspaces.findOne({ _id: 'ws_bench' }))!;
    const first = await workspaceOverview(db, workspace, new Date());
    process.stdout.write(`overview counted ${first.calls.ended} calls ended today and ${first.messages.total} messages (capped: ${first.messages.capped})\n`);
    await measure('GET …/overview (its reads)', () => workspaceOverview(db, workspace, new Date()));
    await measure('Calls page: 25 newest with names', async () => {
      const docs = await listCalls(db, 'ws_bench', {}, { beforeId: null, limit: 25 });
      return callPersonNames(db, 'ws_bench', workspace.country, docs);
    }, scanRounds);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
