import { createServer } from 'node:http';
import Koa from 'koa';

/** The baseline for the API benchmark: Koa answering a small JSON object, nothing else. */
const app = new Koa();
app.use((ctx) => {
  ctx.body = { ok: true };
});
createServer(app.callback()).listen(Number(process.argv[2]), '127.0.0.1');
