import Router from '@koa/router';
import type { Db } from 'mongodb';
import type { Registry } from 'prom-client';
import { pingMongo } from '../../src/db/mongo';
import { describeChild, readChildrenStatus } from '../../src/local/childrenStatus';
import type { TemporalProbe } from '../../src/temporal/client';
import type { RequestState } from '../context';
import { createAppRouter } from '../routerMethods';

export interface HealthDeps {
  db: Db;
  temporalProbe: TemporalProbe;
  registry: Registry;
  /** Longest a readiness probe waits on one dependency before calling it down. */
  probeTimeoutMs?: number;
  /** The launcher's file on its children (LAUNCHER_STATUS_FILE), when run by `npm start`. */
  launcherStatusFile?: string;
}

async function probe(check: () => Promise<void>, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}

/** Operator routes outside /api/v1: no key, not rate limited. */
export function createHealthRouter(deps: HealthDeps): Router<RequestState> {
  const router = createAppRouter();
  const timeoutMs = deps.probeTimeoutMs ?? 2_000;

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const [mongodb, temporal] = await Promise.all([
      probe(() => pingMongo(deps.db), timeoutMs),
      probe(() => deps.temporalProbe.check(timeoutMs), timeoutMs),
    ]);
    const ready = mongodb === 'ok' && temporal === 'ok';
    ctx.status = ready ? 200 : 503;
    const children = deps.launcherStatusFile ? await readChildrenStatus(deps.launcherStatusFile) : null;
    if (!children) {
      ctx.body = { status: ready ? 'ready' : 'unavailable', checks: { mongodb, temporal } };
      return;
    }
    // Another child down (the media bridge, the worker) leaves this API ready for its own
    // traffic: it stays 200 and says which part is degraded.
    const processes = Object.fromEntries(Object.entries(children).map(([name, child]) => [name, describeChild(child)]));
    const degraded = Object.values(processes).some((state) => state !== 'ok');
    ctx.body = { status: !ready ? 'unavailable' : degraded ? 'degraded' : 'ready', checks: { mongodb, temporal }, processes };
  });

  router.get('/metrics', async (ctx) => {
    ctx.type = deps.registry.contentType;
    ctx.body = await deps.registry.metrics();
  });

  return router;
}
