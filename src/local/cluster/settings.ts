import { z } from 'zod';
import { parseEnv } from '../../config';

/**
 * What only `npm run start:cluster` reads (docs/deploy.md, "This machine's cluster"): where
 * PostgreSQL's programs are, its password, and how many of each of our processes run behind
 * the one address (PORT). Everything else is the service's own configuration (src/config.ts).
 */
export const clusterEnvSchema = z.object({
  /** Set by scripts/start-cluster.sh from Debian's postgresql package. */
  PG_BIN_DIR: z.string().min(1).default('/usr/lib/postgresql/15/bin'),
  /** As docker-compose.yml's POSTGRES_PASSWORD (the `temporal` role's). */
  POSTGRES_PASSWORD: z.string().min(1).default('temporal'),
  CLUSTER_API_PROCESSES: z.coerce.number().int().min(1).max(8).default(2),
  CLUSTER_WORKER_PROCESSES: z.coerce.number().int().min(1).max(8).default(2),
  CLUSTER_MEDIA_PROCESSES: z.coerce.number().int().min(1).max(8).default(2),
});

export type ClusterSettings = z.infer<typeof clusterEnvSchema>;

export function loadClusterSettings(env: Record<string, string | undefined> = process.env): ClusterSettings {
  return parseEnv(clusterEnvSchema, env);
}
