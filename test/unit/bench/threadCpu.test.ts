import { Worker } from 'node:worker_threads';
import { markThreads, threadCpuSince } from '../../../bench/threadCpu';

/** bench/threadCpu.ts on this very process: its main thread and a worker thread started after it, each by its own group. */
describe("a process's CPU by thread", () => {
  const spin = (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until);
  };

  it('counts the main thread and a worker thread started later apart, each with the CPU it used', async () => {
    const pids = { jest: process.pid };
    const mark = markThreads(pids);
    // A worker thread that spins until told to stop, so it is alive when the split is read.
    const worker = new Worker('const { parentPort } = require("node:worker_threads"); const until = Date.now() + 300; while (Date.now() < until); parentPort.postMessage("spun"); setInterval(() => {}, 1000);', { eval: true });
    await new Promise((resolve) => worker.once('message', resolve));
    spin(300);
    const split = threadCpuSince(mark, pids, 1);
    await worker.terminate();
    expect(split.jest!.main).toBeGreaterThan(0);
    expect(split.jest!['worker threads']).toBeGreaterThan(0);
  });
});
