import { Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process, with Node's default process metrics under a service label. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
