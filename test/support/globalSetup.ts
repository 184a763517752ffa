import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const tools = process.env.TOOLS_DIR ?? '.tools';
  mkdirSync(fromRoot('.test-data'), { recursive: true });
  const dir = mkdtempSync(join(fromRoot('.test-data'), 'run-'));
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

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => process.stderr.write(`[bundler] ${message}\n`),
  error: (message: string) => process.stderr.write(`[bundler] ${message}\n`),
};
