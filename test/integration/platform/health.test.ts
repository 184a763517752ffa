import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { writeChildrenStatus } from '../../../src/local/childrenStatus';
import { freePort } from '../../../src/local/net';
import { startTestApi, useTestApi } from '../../support/app';

const envelope = (code: string, message: string) => ({
  error: {
    code,
    message,
    details: {},
    request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/),
    correlation_id: expect.stringMatching(/^cor_[0-9a-f]{24}$/),
  },
});

/**
 * Where a test expects `ready`, /readyz gets a budget a loaded machine cannot exceed: the first
 * check opens the probe's Temporal connection (0.4 s at load 12 here, against the default 2 s).
 */
const READY_PROBE_MS = 30_000;

describe('health and readiness over HTTP', () => {
  const { api } = useTestApi({ probeTimeoutMs: READY_PROBE_MS });

  it('GET /healthz answers 200 while the process is alive', async () => {
    const res = await request(api.server).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('GET /readyz answers 200 when MongoDB and Temporal both answer', async () => {
    const res = await request(api.server).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { mongodb: 'ok', temporal: 'ok' } });
  });

  it('GET /metrics serves Prometheus text including the request counter', async () => {
    await request(api.server).get('/healthz');
    const res = await request(api.server).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200",service="api"\} \d+/);
    expect(res.text).toContain('process_cpu_seconds_total');
  });

  it('answers an unknown path with the 404 envelope', async () => {
    const res = await request(api.server).get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelope('not_found', 'No route matches this path.'));
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  });

  it('echoes X-Correlation-Id in the envelope', async () => {
    const res = await request(api.server).get('/api/v1/nothing-here').set('X-Correlation-Id', 'cor_from_caller_42');
    expect(res.body.error.correlation_id).toBe('cor_from_caller_42');
  });

  it('answers a wrong method with 405 invalid_argument and keeps Allow', async () => {
    const res = await request(api.server).post('/readyz');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('HEAD, GET');
    expect(res.body).toEqual(envelope('invalid_argument', 'This method is not allowed on this path; see the Allow header.'));
  });
});

describe('readiness when a dependency is down', () => {
  it('answers 503 naming Temporal when it cannot be reached', async () => {
    const deadPort = await freePort();
    const api = await startTestApi({ env: { TEMPORAL_ADDRESS: `127.0.0.1:${deadPort}` } });
    try {
      const res = await request(api.server).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('unavailable');
      expect(res.body.checks.mongodb).toBe('ok');
      expect(res.body.checks.temporal).not.toBe('ok');
      expect((await request(api.server).get('/healthz')).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});

describe('readiness under the launcher (LAUNCHER_STATUS_FILE)', () => {
  it('names each child; one down leaves the API ready (200) for its own traffic and the status degraded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'children-'));
    const file = join(dir, 'children.json');
    const api = await startTestApi({ env: { LAUNCHER_STATUS_FILE: file }, probeTimeoutMs: READY_PROBE_MS });
    try {
      // No file yet (the launcher has not written it): nothing to say of the others.
      expect((await request(api.server).get('/readyz')).body).toEqual({ status: 'ready', checks: { mongodb: 'ok', temporal: 'ok' } });

      const running = { state: 'running', pid: 4242, since: '2026-11-27T10:00:00.000Z' } as const;
      await writeChildrenStatus(file, { temporal: running, ferretdb: running, worker: running, api: running, media: running });
      let res = await request(api.server).get('/readyz');
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { status: 'ready', checks: { mongodb: 'ok', temporal: 'ok' }, processes: { temporal: 'ok', ferretdb: 'ok', worker: 'ok', api: 'ok', media: 'ok' } },
      });

      await writeChildrenStatus(file, {
        temporal: running,
        ferretdb: running,
        worker: running,
        api: running,
        media: { state: 'restarting', since: '2026-11-27T10:01:00.000Z', failures: 7, last_exit: 'failed to start: media exited (1) during start-up', next_attempt_at: '2026-11-27T10:03:08.000Z' },
      });
      res = await request(api.server).get('/readyz');
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: {
          status: 'degraded',
          checks: { mongodb: 'ok', temporal: 'ok' },
          processes: {
            temporal: 'ok',
            ferretdb: 'ok',
            worker: 'ok',
            api: 'ok',
            media: 'down since 2026-11-27T10:01:00.000Z: 7 failures in a row (last: failed to start: media exited (1) during start-up); next restart at 2026-11-27T10:03:08.000Z',
          },
        },
      });
    } finally {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
