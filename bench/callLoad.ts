import { performance } from 'node:perf_hooks';
import { sleep } from './benchStats';

/**
 * The two kinds of client the call benchmark runs against the public API: placers, which
 * place calls as fast as the API admits them (round robin over workspaces and their keys),
 * and probes, which place a call that stays up, hang it up once connected, and poll until
 * its result is no longer pending.
 */

export interface BenchWorkspace {
  id: string;
  keys: string[];
  /** Set when the API refused a call for the day's budget: no more calls here. */
  exhausted: boolean;
}

interface Answer {
  status: number;
  body: any;
  ms: number;
}

export async function request(base: string, method: 'GET' | 'POST' | 'PUT', path: string, key: string, body?: unknown): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, ms: performance.now() - started };
}

function keyPicker(ws: BenchWorkspace): () => string {
  let next = 0;
  return () => ws.keys[next++ % ws.keys.length]!;
}

export interface Placement {
  callId: string;
  workspaceId: string;
  /** ms since the benchmark's clock started, when the 201 arrived. */
  at: number;
  /** POST /calls latency: admission, the workflow start and the network's placement. */
  ms: number;
}

export interface Lifecycle {
  callId: string;
  /** ms on the clock when the 201 arrived. */
  placedAt: number;
  /** ms on the clock when a GET first showed a decided result. */
  decidedAt: number;
  state: string;
  disposition: string | null;
}

export interface LifecycleReport {
  placements: Placement[];
  lifecycles: Lifecycle[];
  /** Refusals by reason (call_concurrency, daily_call_budget, rate_limited …). */
  refused: Record<string, number>;
  errors: number;
  firstError: string | null;
}

/**
 * `lanes` clients, spread over the workspaces, each placing a call and polling it every
 * `pollMs` until its result is decided, then placing the next, until `untilMs`: a closed
 * loop, so the rate measured is what the whole system (placement, the call, its reading)
 * keeps up with, not a backlog building behind the API.
 */
export async function runLifecycles(opts: {
  base: string;
  workspaces: BenchWorkspace[];
  lanes: number;
  clock: () => number;
  untilMs: number;
  pollMs: number;
  body: Record<string, unknown>;
}): Promise<LifecycleReport> {
  const report: LifecycleReport = { placements: [], lifecycles: [], refused: {}, errors: 0, firstError: null };
  const pickers = new Map(opts.workspaces.map((ws) => [ws.id, keyPicker(ws)]));
  const fail = (message: string) => {
    report.errors++;
    report.firstError ??= message;
  };
  const lane = async (n: number) => {
    const ws = opts.workspaces[n % opts.workspaces.length]!;
    const key = pickers.get(ws.id)!;
    while (opts.clock() < opts.untilMs && !ws.exhausted) {
      let placed: Answer;
      try {
        placed = await request(opts.base, 'POST', '/api/v1/calls', key(), opts.body);
      } catch (err) {
        fail(String(err));
        await sleep(250);
        continue;
      }
      if (placed.status !== 201) {
        const reason = placed.body?.error?.details?.reason ?? `${placed.status} ${placed.body?.error?.code ?? ''}`.trim();
        report.refused[reason] = (report.refused[reason] ?? 0) + 1;
        if (reason === 'daily_call_budget') ws.exhausted = true;
        else if (reason !== 'call_concurrency' && reason !== 'rate_limited') fail(`${placed.status} ${JSON.stringify(placed.body)}`);
        await sleep(250);
        continue;
      }
      const callId: string = placed.body.call_id;
      const placedAt = opts.clock();
      report.placements.push({ callId, workspaceId: ws.id, at: placedAt, ms: placed.ms });
      try {
        for (;;) {
          await sleep(opts.pollMs);
          const res = await request(opts.base, 'GET', `/api/v1/calls/${callId}`, key());
          if (res.status !== 200) throw new Error(`GET ${callId}: ${res.status} ${JSON.stringify(res.body)}`);
          if (res.body.result.state !== 'pending') {
            report.lifecycles.push({ callId, placedAt, decidedAt: opts.clock(), state: res.body.result.state, disposition: res.body.result.disposition });
            break;
          }
          if (opts.clock() - placedAt > 120_000) throw new Error(`call ${callId} undecided after 120 s`);
        }
      } catch (err) {
        fail(err instanceof Error ? err.message : String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.lanes }, (_, n) => lane(n)));
  return report;
}

export interface HeldCalls {
  placements: Placement[];
  /** ms on the clock from the first request to the last 201. */
  elapsedMs: number;
  refused: Record<string, number>;
  errors: number;
  firstError: string | null;
}

/**
 * Places calls that stay up, round robin over the workspaces, until `maxCalls` are placed,
 * every workspace holds its ten live calls (429 `call_concurrency` marks a workspace full)
 * or `untilMs` passes: the rate the API admits and places calls when none is ending.
 */
export async function holdCalls(opts: {
  base: string;
  workspaces: BenchWorkspace[];
  connections: number;
  clock: () => number;
  untilMs: number;
  maxCalls: number;
  body: Record<string, unknown>;
}): Promise<HeldCalls> {
  const started = opts.clock();
  const out: HeldCalls = { placements: [], elapsedMs: 0, refused: {}, errors: 0, firstError: null };
  const full = new Set<string>();
  const pickers = new Map(opts.workspaces.map((ws) => [ws.id, keyPicker(ws)]));
  let turn = 0;
  // Calls placed or being placed, so the loops stop at `maxCalls` without overshooting.
  let taken = 0;
  const lane = async () => {
    while (opts.clock() < opts.untilMs && full.size < opts.workspaces.length && taken < opts.maxCalls) {
      const ws = opts.workspaces[turn++ % opts.workspaces.length]!;
      if (full.has(ws.id)) continue;
      taken++;
      let answer: Answer;
      try {
        answer = await request(opts.base, 'POST', '/api/v1/calls', pickers.get(ws.id)!(), opts.body);
      } catch (err) {
        out.errors++;
        out.firstError ??= String(err);
        continue;
      }
      if (answer.status === 201) {
        out.placements.push({ callId: answer.body.call_id, workspaceId: ws.id, at: opts.clock(), ms: answer.ms });
        out.elapsedMs = opts.clock() - started;
        continue;
      }
      taken--;
      const reason = answer.body?.error?.details?.reason ?? `${answer.status} ${answer.body?.error?.code ?? ''}`.trim();
      out.refused[reason] = (out.refused[reason] ?? 0) + 1;
      if (reason === 'call_concurrency' || reason === 'daily_call_budget') full.add(ws.id);
      else {
        out.errors++;
        out.firstError ??= `${answer.status} ${JSON.stringify(answer.body)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, lane));
  return out;
}

export interface HangupSample {
  callId: string;
  /** Wall-clock time (epoch ms) the hang-up was sent, to compare with the read model's times. */
  sentAt: number;
  hangupMs: number;
  /** For the calls polled: from sending the hang-up until a GET showed the call `completed`. */
  endedMs: number | null;
  /** For the calls polled: from sending the hang-up until a GET showed a decided result. */
  readyMs: number | null;
  state: string | null;
  disposition: string | null;
}

/**
 * Hangs up connected calls, `perSecond` of them each second (workspaces interleaved). One
 * call in `pollEvery` is then polled every `pollMs` until its result is decided, as a client
 * would; the others are left to the read model's times, so the polling does not swamp the
 * system it measures.
 */
export async function hangUpAll(opts: {
  base: string;
  calls: Placement[];
  workspaces: BenchWorkspace[];
  perSecond: number;
  pollEvery: number;
  pollMs: number;
}): Promise<{ samples: HangupSample[]; errors: string[] }> {
  const pickers = new Map(opts.workspaces.map((ws) => [ws.id, keyPicker(ws)]));
  const byWorkspace = new Map<string, Placement[]>();
  for (const call of opts.calls) byWorkspace.set(call.workspaceId, [...(byWorkspace.get(call.workspaceId) ?? []), call]);
  const queues = [...byWorkspace.values()];
  const order: Placement[] = [];
  for (let i = 0; queues.some((q) => i < q.length); i++) for (const q of queues) if (i < q.length) order.push(q[i]!);

  const samples: HangupSample[] = [];
  const errors: string[] = [];
  const one = async (call: Placement, poll: boolean) => {
    const key = pickers.get(call.workspaceId)!;
    try {
      const sentAt = Date.now();
      const t0 = performance.now();
      const hangup = await request(opts.base, 'POST', `/api/v1/calls/${call.callId}/hangup`, key());
      if (hangup.status !== 200 || hangup.body.ended !== true) throw new Error(`hangup ${call.callId}: ${hangup.status} ${JSON.stringify(hangup.body)}`);
      const sample: HangupSample = { callId: call.callId, sentAt, hangupMs: hangup.ms, endedMs: null, readyMs: null, state: null, disposition: null };
      samples.push(sample);
      if (!poll) return;
      const deadline = t0 + 60_000;
      for (;;) {
        const res = await request(opts.base, 'GET', `/api/v1/calls/${call.callId}`, key());
        if (res.status !== 200) throw new Error(`GET ${call.callId}: ${res.status} ${JSON.stringify(res.body)}`);
        if (sample.endedMs === null && res.body.status === 'completed') sample.endedMs = performance.now() - t0;
        if (res.body.result.state !== 'pending') {
          Object.assign(sample, { readyMs: performance.now() - t0, state: res.body.result.state, disposition: res.body.result.disposition });
          return;
        }
        if (performance.now() > deadline) throw new Error(`call ${call.callId} stuck: ${JSON.stringify(res.body)}`);
        await sleep(opts.pollMs);
      }
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
  };
  const running: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < order.length; i++) {
    const due = started + (i * 1000) / opts.perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(one(order[i]!, i % opts.pollEvery === 0));
  }
  await Promise.all(running);
  return { samples, errors };
}

export interface ProbeSample {
  callId: string;
  /** POST /calls latency. */
  placeMs: number;
  /** From the 201 until a GET showed `in_progress`. */
  answeredAfterMs: number;
  /** POST /hangup latency. */
  hangupMs: number;
  /** From sending the hang-up until a GET showed the call `completed`. */
  endedMs: number | null;
  /** From sending the hang-up until a GET showed `result.state` other than `pending`. */
  readyMs: number;
  state: string;
  disposition: string | null;
  outcome: string | null;
}

/**
 * One probe loop: place a call to a destination scripted to stay up, wait until connected
 * (plus `connectedMs`, so the transcript has the person's answers for the reader), hang up,
 * and poll GET /calls/{id} every `pollMs` until the result is decided.
 */
export async function runProbe(opts: {
  base: string;
  ws: BenchWorkspace;
  body: Record<string, unknown>;
  clock: () => number;
  untilMs: number;
  maxSamples: number;
  pollMs: number;
  connectedMs: number;
}): Promise<{ samples: ProbeSample[]; errors: string[] }> {
  const key = keyPicker(opts.ws);
  const samples: ProbeSample[] = [];
  const errors: string[] = [];
  const get = (callId: string) => request(opts.base, 'GET', `/api/v1/calls/${callId}`, key());
  const pollUntil = async (callId: string, done: (b: any) => boolean, timeoutMs: number): Promise<any> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const res = await get(callId);
      if (res.status !== 200) throw new Error(`GET ${callId}: ${res.status} ${JSON.stringify(res.body)}`);
      if (done(res.body)) return res.body;
      if (performance.now() > deadline) throw new Error(`call ${callId} stuck: ${JSON.stringify(res.body)}`);
      await sleep(opts.pollMs);
    }
  };
  while (opts.clock() < opts.untilMs && samples.length < opts.maxSamples) {
    try {
      const placed = await request(opts.base, 'POST', '/api/v1/calls', key(), opts.body);
      if (placed.status !== 201) throw new Error(`POST /calls: ${placed.status} ${JSON.stringify(placed.body)}`);
      const callId: string = placed.body.call_id;
      const placedAt = performance.now();
      await pollUntil(callId, (b) => b.status === 'in_progress', 30_000);
      const answeredAfterMs = performance.now() - placedAt;
      await sleep(opts.connectedMs);
      const t0 = performance.now();
      const hangup = await request(opts.base, 'POST', `/api/v1/calls/${callId}/hangup`, key());
      if (hangup.status !== 200 || hangup.body.ended !== true) throw new Error(`hangup ${callId}: ${hangup.status} ${JSON.stringify(hangup.body)}`);
      let endedMs: number | null = null;
      const done = await pollUntil(
        callId,
        (b) => {
          if (endedMs === null && b.status === 'completed') endedMs = performance.now() - t0;
          return b.result.state !== 'pending';
        },
        60_000,
      );
      samples.push({
        callId,
        placeMs: placed.ms,
        answeredAfterMs,
        hangupMs: hangup.ms,
        endedMs,
        readyMs: performance.now() - t0,
        state: done.result.state,
        disposition: done.result.disposition ?? null,
        outcome: done.outcome,
      });
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
      await sleep(200);
    }
  }
  return { samples, errors };
}
