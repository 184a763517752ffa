import Koa from 'koa';
import type { Server } from 'node:http';
import request from 'supertest';
import { z } from 'zod';
import { MongoNetworkError, type Db } from 'mongodb';
import { ApiError } from '../../../api/errors';
import type { RequestState } from '../../../api/context';
import { errorHandler } from '../../../api/middleware/errorHandler';
import { requestContext } from '../../../api/middleware/requestContext';
import { CursorCodec } from '../../../api/pagination';
import { buildPublicRouter } from '../../../api/v1/router';
import { route } from '../../../api/route';
import { IDEMPOTENCY_LEASE_MS, IdempotencyStore, type ClaimResult, type ClaimScope } from '../../../src/idempotency/store';
import { createLogger } from '../../../src/observability/logger';
import { createMetricsRegistry } from '../../../src/observability/metrics';
import { MongoCounterStore } from '../../../src/rateLimit/counterStore';
import { createApiServer } from '../../../api/server';
import { openTestDb, testConfig } from '../../support/env';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * The middleware on a route of its own, mounted by the real route builder behind the real
 * key checks and rate limit, so these tests hold for every route marked idempotent.
 */
/**
 * Writes the first claim of an Idempotency-Key starting `lost-` and then fails as a database
 * that stopped answering does: the write reached the server, its answer never came.
 */
class AnswerLostStore extends IdempotencyStore {
  private readonly lost = new Set<string>();
  override async claim(scope: ClaimScope, rawBody: Buffer, owner: string, now: Date): Promise<ClaimResult> {
    const result = await super.claim(scope, rawBody, owner, now);
    if (!scope.idempotencyKey.startsWith('lost-') || this.lost.has(scope.idempotencyKey)) return result;
    this.lost.add(scope.idempotencyKey);
    throw new MongoNetworkError('connection timed out');
  }
}

const echoBody = z.object({ value: z.string(), fail: z.enum(['400', '500']).optional(), held: z.boolean().optional() });

describe('Idempotency-Key (api-core §4)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let server: Server;
  let ws: TestWorkspace;
  let runs: number;
  let clock: Date;
  /** A handler told `held` waits for this, so a test decides when it answers (not the machine's load). */
  let released: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    const config = testConfig();
    ({ db, drop } = await openTestDb(config));
    const echo = route({
      method: 'post',
      path: '/api/v1/echo',
      operationId: 'echo',
      summary: 'test route',
      auth: { scope: null },
      idempotent: true,
      body: echoBody,
      response: { status: 201, description: 'echo', schema: z.object({ run: z.number().int(), value: z.string() }) },
      handler: async (ctx, { body }) => {
        runs += 1;
        if (body.held) await released;
        if (body.fail === '400') throw new ApiError('invalid_argument', 'Told to fail.');
        if (body.fail === '500') throw new Error('boom');
        ctx.status = 201;
        ctx.body = { run: runs, value: body.value };
      },
    });
    const logger = createLogger(config, 'test');
    const app = new Koa<RequestState>();
    app.silent = true;
    app.use(requestContext(logger, createMetricsRegistry('test')));
    app.use(errorHandler());
    const now = () => clock;
    const router = buildPublicRouter([echo], {
      config,
      db,
      temporal: undefined as never,
      logger,
      cursors: new CursorCodec('test-cursor-secret-0123456789'),
      rateLimitStore: new MongoCounterStore(db),
      idempotencyStore: new AnswerLostStore(db),
      events: undefined as never,
      now,
    });
    app.use(router.routes());
    server = createApiServer(app);
    ws = await createTestWorkspace(db);
  });

  afterAll(async () => {
    await drop?.();
  });

  beforeEach(() => {
    runs = 0;
    clock = new Date();
  });

  const send = (key: string | null, body: string, apiKey = ws.key) => {
    const req = request(server).post('/api/v1/echo').set(bearer(apiKey)).set('Content-Type', 'application/json');
    return (key ? req.set('Idempotency-Key', key) : req).send(body);
  };

  /** From now on, a handler told `held` waits until the returned function is called. */
  const holdHandlers = (): (() => void) => {
    let release = () => {};
    released = new Promise((resolve) => (release = resolve));
    return release;
  };

  /** Polls `check` until it holds; the deadline leaves room for a loaded machine. */
  const until = async (what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> => {
    for (const deadline = Date.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  };

  it('replays the first success for the same key and bytes without running the handler again', async () => {
    const first = await send('k-replay', '{"value":"a"}');
    const second = await send('k-replay', '{"value":"a"}');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.body).toEqual({ run: 1, value: 'a' });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
  });

  it('refuses the same key with different bytes, even the same JSON spaced differently: 409 idempotency_key_reuse', async () => {
    await send('k-reuse', '{"value":"a"}');
    for (const other of ['{"value":"b"}', '{ "value": "a" }']) {
      const res = await send('k-reuse', other);
      expect(res.status).toBe(409);
      expect(res.body).toEqual(envelope('conflict', 'This Idempotency-Key was used with a different request body.', { reason: 'idempotency_key_reuse' }));
    }
    expect(runs).toBe(1);
  });

  it('runs the handler exactly once for parallel requests with one key; the rest are told it is in progress', async () => {
    // The first request's handler is held until the nine others are answered, so all ten overlap
    // however slowly a loaded machine sends them (a timed delay let late ones see the replay).
    const release = holdHandlers();
    const body = '{"value":"p","held":true}';
    let answered = 0;
    const requests = Array.from({ length: 10 }, () =>
      send('k-parallel', body).then((res) => {
        if (++answered === 9) release();
        return res;
      }),
    );
    const responses = await Promise.all(requests);
    expect(runs).toBe(1);
    const statuses = responses.map((r) => r.status).sort((a, b) => a - b);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const res of responses.filter((r) => r.status === 409)) {
      expect(res.body).toEqual(
        envelope('conflict', 'A request with this Idempotency-Key is still running; retry shortly.', {
          reason: 'idempotency_in_progress',
          retry_after_seconds: 2,
        }),
      );
    }
    const after = await send('k-parallel', body);
    expect(after.status).toBe(201);
    expect(after.body).toEqual({ run: 1, value: 'p' });
    expect(runs).toBe(1);
  });

  it('releases the key on a 4xx, so a retry runs fresh', async () => {
    expect((await send('k-400', '{"value":"x","fail":"400"}')).status).toBe(400);
    expect((await send('k-400', '{"value":"x","fail":"400"}')).status).toBe(400);
    expect(runs).toBe(2);
  });

  it('releases the key on a 5xx, so a retry runs fresh', async () => {
    const res = await send('k-500', '{"value":"x","fail":"500"}');
    expect(res.status).toBe(500);
    expect(res.body).toEqual(envelope('internal', 'Internal server error.'));
    expect((await send('k-500', '{"value":"x","fail":"500"}')).status).toBe(500);
    expect(runs).toBe(2);
  });

  it('releases the key on a validation failure', async () => {
    expect((await send('k-invalid', '{"value":1}')).status).toBe(400);
    expect((await send('k-invalid', '{"value":1}')).status).toBe(400);
    expect((await send('k-invalid', '{"value":1}')).body.error.details.reason).toBeUndefined();
  });

  const claimOf = (idempotencyKey: string) =>
    IdempotencyStore.id({ tenantId: ws.workspaceId, keyId: ws.keyId, endpoint: 'POST /api/v1/echo', idempotencyKey });
  const UNAVAILABLE = envelope('internal', 'The database is not answering; retry shortly.', { reason: 'unavailable' });

  it('runs a retry fresh when the first request’s claim landed but the database never answered it', async () => {
    const failed = await send('lost-retry', '{"value":"l"}');
    expect({ status: failed.status, body: failed.body }).toEqual({ status: 503, body: UNAVAILABLE });
    expect(failed.headers['retry-after']).toBe('5');
    const retry = await send('lost-retry', '{"value":"l"}');
    expect({ status: retry.status, body: retry.body }).toEqual({ status: 201, body: { run: 1, value: 'l' } });
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('releases such a claim in the background once the database answers, with no retry', async () => {
    const failed = await send('lost-background', '{"value":"b"}');
    expect(failed.status).toBe(503);
    await until('the claim to be released', async () => !(await db.collection('idempotency_keys').findOne({ _id: claimOf('lost-background') as never })));
    expect(runs).toBe(0);
  });

  it('takes over a claim left by a process that died mid-request, once its lease has passed', async () => {
    const body = '{"value":"d"}';
    const scope = { tenantId: ws.workspaceId, keyId: ws.keyId, endpoint: 'POST /api/v1/echo', idempotencyKey: 'k-dead' };
    const store = new IdempotencyStore(db);
    expect((await store.claim(scope, Buffer.from(body), 'req_dead', clock)).kind).toBe('claimed');

    const whileLeased = await send('k-dead', body);
    expect(whileLeased.status).toBe(409);
    expect(whileLeased.body.error.details.reason).toBe('idempotency_in_progress');

    clock = new Date(clock.getTime() + IDEMPOTENCY_LEASE_MS + 1);
    const taken = await send('k-dead', body);
    expect(taken.status).toBe(201);
    expect(runs).toBe(1);
    expect((await send('k-dead', body)).body).toEqual({ run: 1, value: 'd' });
  });

  it('lets a retry through about a lease (5 s, near the 2 s it tells a retry to wait) after the holder died, not 30 s', async () => {
    const body = '{"value":"soon"}';
    const scope = { tenantId: ws.workspaceId, keyId: ws.keyId, endpoint: 'POST /api/v1/echo', idempotencyKey: 'k-dead-soon' };
    const store = new IdempotencyStore(db);
    // The holder claimed 6 s ago and has renewed nothing since: its process is gone.
    expect((await store.claim(scope, Buffer.from(body), 'req_gone', new Date(clock.getTime() - 6_000))).kind).toBe('claimed');
    const res = await send('k-dead-soon', body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ run: 1, value: 'soon' });
  });

  it('lets exactly one of ten parallel retries take over a dead holder’s claim', async () => {
    // The winner's handler is held until the nine others are answered (as in the parallel test
    // above): with a timed delay, a retry that a loaded machine sent late saw the replay (201).
    const release = holdHandlers();
    const body = '{"value":"race","held":true}';
    const scope = { tenantId: ws.workspaceId, keyId: ws.keyId, endpoint: 'POST /api/v1/echo', idempotencyKey: 'k-dead-race' };
    const store = new IdempotencyStore(db);
    expect((await store.claim(scope, Buffer.from(body), 'req_gone', new Date(clock.getTime() - 6_000))).kind).toBe('claimed');
    let answered = 0;
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        send('k-dead-race', body).then((res) => {
          if (++answered === 9) release();
          return res;
        }),
      ),
    );
    expect(responses.map((r) => r.status).sort((a, b) => a - b)).toEqual([201, ...Array(9).fill(409)]);
    expect(runs).toBe(1);
    expect((await send('k-dead-race', body)).body).toEqual({ run: 1, value: 'race' });
  });

  it('takes over a take-over whose winner died before writing the record', async () => {
    const body = '{"value":"hop"}';
    const scope = { tenantId: ws.workspaceId, keyId: ws.keyId, endpoint: 'POST /api/v1/echo', idempotencyKey: 'k-dead-hop' };
    const store = new IdempotencyStore(db);
    const old = new Date(clock.getTime() - 12_000);
    expect((await store.claim(scope, Buffer.from(body), 'req_first', old)).kind).toBe('claimed');
    // A retry 6 s later won the take-over and died before writing itself into the record.
    await db.collection('idempotency_takeovers').insertOne({
      _id: `${IdempotencyStore.id(scope)}|after|req_first` as never,
      taken_by: 'req_second',
      lease_until: new Date(clock.getTime() - 1_000),
      expires_at: new Date(clock.getTime() + 3_600_000),
    });
    const res = await send('k-dead-hop', body);
    expect(res.status).toBe(201);
    expect(runs).toBe(1);
  });

  it('does not take over a live request that runs past its first lease: it renews its claim', async () => {
    // Held until the retry is answered, and the renewal waited for, not timed: with a 4 s
    // handler and a 2.3 s pause, a loaded machine could end the request before the retry
    // (a replay) or renew only after it (a take-over).
    const release = holdHandlers();
    const body = '{"value":"long","held":true}';
    const started = clock.getTime();
    // supertest sends on `then`: started now, awaited at the end.
    const running = send('k-long', body).then((res) => res);
    try {
      const leaseOf = async () => (await db.collection<{ lease_until: Date }>('idempotency_keys').findOne({ _id: claimOf('k-long') as never }))?.lease_until.getTime();
      // Its claim taken at the first clock (not a fixed pause: a loaded machine may not have got there yet).
      await until('the request to claim its key', async () => (await leaseOf()) === started + IDEMPOTENCY_LEASE_MS);
      clock = new Date(started + IDEMPOTENCY_LEASE_MS - 500);
      // A renewal (every IDEMPOTENCY_RENEW_MS of real time) extends the lease from the moved clock.
      await until('a renewal from the moved clock', async () => (await leaseOf()) === started + 2 * IDEMPOTENCY_LEASE_MS - 500);
      clock = new Date(started + IDEMPOTENCY_LEASE_MS + 2_000);
      const retry = await send('k-long', body);
      expect(retry.status).toBe(409);
      expect(retry.body.error.details).toEqual({ reason: 'idempotency_in_progress', retry_after_seconds: 2 });
    } finally {
      release();
    }
    expect((await running).status).toBe(201);
    expect((await send('k-long', body)).body).toEqual({ run: 1, value: 'long' });
    expect(runs).toBe(1);
  });

  it('scopes keys to the API key: another key of the workspace with the same Idempotency-Key runs fresh', async () => {
    const other = await ws.addKey([]);
    await send('k-scope', '{"value":"s"}');
    const res = await send('k-scope', '{"value":"s"}', other.key);
    expect(res.body).toEqual({ run: 2, value: 's' });
  });

  it('forgets a key after 24 hours', async () => {
    await send('k-ttl', '{"value":"t"}');
    clock = new Date(clock.getTime() + 24 * 3_600_000 + 1);
    const res = await send('k-ttl', '{"value":"other"}');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ run: 2, value: 'other' });
  });

  it('runs every request without a key', async () => {
    await send(null, '{"value":"n"}');
    await send(null, '{"value":"n"}');
    expect(runs).toBe(2);
  });

  it('refuses an unusable key header', async () => {
    const res = await send('has space', '{"value":"x"}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(envelope('invalid_argument', 'Idempotency-Key must be 1 to 255 visible ASCII characters.'));
  });
});
