import { Client, Connection } from '@temporalio/client';
import { temporalConnectionOptions, type TemporalConnectionConfig } from './connectionSettings';

/** The address, namespace and, off loopback, TLS and API key (src/temporal/connectionSettings.ts). */
export type TemporalConfig = TemporalConnectionConfig;

export async function connectTemporalClient(config: TemporalConfig): Promise<Client> {
  const connection = await Connection.connect({ ...temporalConnectionOptions(config), connectTimeout: '5s' });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/**
 * Answers "is Temporal reachable and serving our namespace right now?" for /readyz. It has
 * a connection of its own without the client's retry interceptor: a probe should report
 * the present, and the SDK's retry timers outlive deadlines (they would fire on a closed
 * channel after shutdown).
 */
export interface TemporalProbe {
  check(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export function createTemporalProbe(config: TemporalConfig): TemporalProbe {
  const connection = Connection.lazy({ ...temporalConnectionOptions(config), interceptors: [] });
  return {
    async check(timeoutMs) {
      await connection.withDeadline(Date.now() + timeoutMs, () =>
        connection.workflowService.describeNamespace({ namespace: config.TEMPORAL_NAMESPACE }),
      );
    },
    close: () => connection.close(),
  };
}
