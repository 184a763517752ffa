import { createServer } from 'node:http';
import Koa from 'koa';

/** The baseline for the API benchmark: Koa answering a small JSON object, nothing else. */
const app = new Koa();
app.use((ctx) => {
  ctx.body = { ok: true };
});
const handle = app.callback();
// Koa's handler answers its own errors; nothing waits on its promise.
createServer((req, res) => void handle(req, res)).listen(Number(process.argv[2]), '127.0.0.1');
