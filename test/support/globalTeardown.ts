import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const run = globalThis.__testServers;
  if (!run) return;
  await Promise.all(run.servers.map((s) => s.process.stop()));
  // Keep the folder (logs) when something failed and the caller asked to.
  if (!process.env.KEEP_TEST_DATA) rmSync(run.dir, { recursive: true, force: true });
}
