import { Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';

/**
 * How the launcher asks a running child whether it still answers (src/local/supervisor.ts
 * restarts one that stops): a MongoDB `ping` for FerretDB, the gRPC health service for
 * Temporal, `/healthz` for the worker and the API. Each check rejects with a short reason.
 */

export interface LivenessProbe {
  check(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface LivenessPolicy {
  /** Pause between checks. */
  intervalMs: number;
  /** A check that has not answered by then has failed. */
  timeoutMs: number;
  /** This many failed checks in a row, and the child is restarted. */
  failures: number;
}

/** Every 5 s, 5 s to answer, 3 in a row: a child is restarted after 15 to 30 s without an answer. */
export const DEFAULT_LIVENESS_POLICY: LivenessPolicy = { intervalMs: 5_000, timeoutMs: 5_000, failures: 3 };

/** One `ping` on a connection of its own, so a stale pooled connection cannot answer for the server. */
export async function pingMongoServer(url: string, timeoutMs: number): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs, socketTimeoutMS: timeoutMs, maxPoolSize: 1 });
  try {
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close(true);
  }
}

export function mongoPing(url: string): LivenessProbe {
  return { check: (timeoutMs) => pingMongoServer(url, timeoutMs), close: async () => undefined };
}

const SERVING = 1;

/**
 * Asks a Temporal process's gRPC health service about `service`, on one connection for every
 * check (gRPC reconnects by itself to a restarted server). The connection has no retry
 * interceptor: the SDK's retries run on timers that outlive a check's deadline, and one
 * firing after `close()` throws "Channel has been shut down" from a timer, which killed the
 * launcher while it stopped (a check given up on by the supervisor, or by a start-up wait
 * whose process exited). A probe reports the present; the next check is the retry.
 */
export function grpcHealth(address: string, service: string): LivenessProbe {
  const connection = Connection.lazy({ address, connectTimeout: '2s', interceptors: [] });
  return {
    async check(timeoutMs) {
      const res = await connection.withDeadline(Date.now() + timeoutMs, () => connection.healthService.check({ service }));
      if (res.status !== SERVING) throw new Error(`health status ${res.status}`);
    },
    close: () => connection.close(),
  };
}

export function temporalHealth(address: string): LivenessProbe {
  return grpcHealth(address, 'temporal.api.workflowservice.v1.WorkflowService');
}

export function httpHealth(url: string): LivenessProbe {
  return {
    async check(timeoutMs) {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
    },
    close: async () => undefined,
  };
}
