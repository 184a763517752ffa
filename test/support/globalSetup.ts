import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort } from '../../src/local/net';
import { fromRoot, toolPath } from '../../src/local/paths';
import { startFerretDb, startTemporalDevServer, type LocalServer } from '../../src/local/servers';
import { workflowsPath } from '../../src/worker/createWorker';

declare global {
  // Shared with globalTeardown, which jest runs in the same context.
  var __testServers: { servers: LocalServer[]; dir: string } | undefined;
}

/**
 * Private servers on free ports for this run, with their data in a fresh folder, and the
 * workflow code bundled once. Test files find them through the TEST_* variables.
 * TEST_TARGET=cluster uses a running `npm run start:cluster` instead (docs/deploy.md, "Tests
 * and benchmarks against the cluster"): its Temporal frontend and FerretDB on PostgreSQL.
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const tools = process.env.TOOLS_DIR ?? '.tools';
  mkdirSync(fromRoot('.test-data'), { recursive: true });
  const dir = mkdtempSync(join(fromRoot('.test-data'), 'run-'));
  if (process.env.TEST_TARGET === 'cluster') return useCluster(dir, tools, started);
  const [temporalPort, uiPort, mongoPort] = [await freePort(), await freePort(), await freePort()];

  const [temporal, ferret, bundle] = await Promise.all([
    startTemporalDevServer({
      binary: toolPath(tools, 'temporal'),
      port: temporalPort,
      uiPort,
      dataDir: join(dir, 'temporal'),
      logFile: join(dir, 'temporal.log'),
    }),
    startFerretDb({ binary: toolPath(tools, 'ferretdb'), port: mongoPort, dataDir: dir, logFile: join(dir, 'ferretdb.log') }),
    bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger }),
  ]);
  globalThis.__testServers = { servers: [temporal, ferret], dir };

  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  process.env.TEST_TEMPORAL_ADDRESS = temporal.address;
  process.env.TEST_MONGODB_URL = ferret.address;
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  process.env.TEST_RUN_DIR = dir;
  process.env.TEST_TOOLS_DIR = fromRoot(tools);
  process.stdout.write(`\n[test] servers and bundle ready in ${Date.now() - started} ms (${dir})\n`);
}

/** The cluster's addresses, from the file its launcher writes when everything is ready. */
async function useCluster(dir: string, tools: string, started: number): Promise<void> {
  const file = process.env.TEST_CLUSTER_FILE ?? fromRoot('.data/cluster/cluster.json');
  let cluster: { api_url: string; temporal_address: string; mongodb_url: string; launcher_pid: number };
  try {
    cluster = JSON.parse(readFileSync(file, 'utf8')) as typeof cluster;
    process.kill(cluster.launcher_pid, 0);
  } catch (err) {
    throw new Error(`TEST_TARGET=cluster needs a running \`npm run start:cluster\` (${file}: ${err instanceof Error ? err.message : String(err)})`);
  }
  const bundle = await bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
  globalThis.__testServers = { servers: [], dir };
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  process.env.TEST_TEMPORAL_ADDRESS = cluster.temporal_address;
  process.env.TEST_MONGODB_URL = cluster.mongodb_url;
  process.env.TEST_CLUSTER_API_URL = cluster.api_url;
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  process.env.TEST_RUN_DIR = dir;
  process.env.TEST_TOOLS_DIR = fromRoot(tools);
  process.stdout.write(`\n[test] against the cluster (${cluster.api_url}, Temporal ${cluster.temporal_address}); bundle ready in ${Date.now() - started} ms\n`);
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => process.stderr.write(`[bundler] ${message}\n`),
  error: (message: string) => process.stderr.write(`[bundler] ${message}\n`),
};
