import { Worker } from 'node:worker_threads';
import { KNOWLEDGE_LIMITS as L } from './limits';

/**
 * A PDF's text, page by page, read by pdf-parse (pdf.js) in a worker thread of its own: pdf.js
 * parses on the thread that calls it, so a large or hostile PDF would hold the API's event
 * loop for every other request; in its own thread it is bounded in time and memory
 * (`pdfReadTimeoutMs`, `pdfReadMemoryMb`) and a failure ends that upload only. The thread also
 * gives pdf.js a plain Node module context to load its own worker module in (it does so with
 * a dynamic `import()`, which the test runner's sandbox does not provide).
 */

export type PdfText = { ok: true; pages: { num: number; text: string }[] } | { ok: false; error: string };

// Plain CommonJS so it runs as it is from the TypeScript sources and from the build alike.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PDFParse } = require(workerData.module);
(async () => {
  const parser = new PDFParse({ data: workerData.bytes, verbosity: 0 });
  try {
    const result = await parser.getText();
    parentPort.postMessage({ ok: true, pages: result.pages.map((page) => ({ num: page.num, text: page.text })) });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: err && err.message ? err.message : String(err) });
  } finally {
    await parser.destroy().catch(() => undefined);
  }
})();
`;

export function readPdfText(bytes: Uint8Array): Promise<PdfText> {
  return new Promise((resolve) => {
    let settled = false;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // A copy: the thread takes ownership of what it is given.
      workerData: { module: require.resolve('pdf-parse'), bytes: new Uint8Array(bytes) },
      resourceLimits: { maxOldGenerationSizeMb: L.pdfReadMemoryMb },
      stdout: true,
      stderr: true,
    });
    const finish = (result: PdfText) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, error: `reading it took longer than ${L.pdfReadTimeoutMs / 1000} s` }), L.pdfReadTimeoutMs);
    worker.once('message', (message: PdfText) => finish(message));
    worker.once('error', (err) => finish({ ok: false, error: err.message }));
    worker.once('exit', (code) => finish({ ok: false, error: `the reader stopped (exit ${code})` }));
  });
}
