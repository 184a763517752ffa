import type { ClusterState } from '../../src/local/cluster/clusterState';

/** A cluster state file's content naming `processes`, as the launcher writes it (addresses are placeholders). */
export const clusterStateNaming = (processes: Record<string, number>, launcherPid = process.pid): ClusterState => ({
  api_url: 'http://127.0.0.1:3000',
  temporal_address: '127.0.0.1:7233',
  temporal_namespace: 'default',
  mongodb_url: 'mongodb://127.0.0.1:27017/',
  mongodb_db: 'orchestrator',
  postgres_port: 5432,
  temporal_ports: { services: {} as ClusterState['temporal_ports']['services'], frontendHttp: 7243 },
  api: [],
  media: [],
  worker_metrics: [],
  providers: { voice: 'simulator', whatsapp: 'simulator' },
  launcher_pid: launcherPid,
  processes,
});
