import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';

export type TemporalConfig = Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>;

export async function connectTemporalClient(config: TemporalConfig): Promise<Client> {
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS, connectTimeout: '5s' });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/** Reachable and serving our namespace: what readiness means for Temporal. */
export async function checkTemporal(client: Client, namespace: string): Promise<void> {
  await client.connection.workflowService.describeNamespace({ namespace });
}
