import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig, serviceEnvNames } from '../../../src/config';
import { fromRoot } from '../../../src/local/paths';
import { CLI_SEARCH_ATTRIBUTE_TYPE, SEARCH_ATTRIBUTES } from '../../../src/temporal/searchAttributes';
import { clusterEnvSchema } from '../../../src/local/cluster/settings';
import { HISTORY_SHARDS } from '../../../src/local/cluster/temporalServer';
import { temporalConnectionEnv } from '../../../src/temporal/connectionSettings';

interface ComposeService {
  image?: string;
  build?: string | { context: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: string[] | Record<string, unknown>;
  deploy?: { replicas?: number };
}

const composePath = fromRoot('docker-compose.yml');
const compose = parse(readFileSync(composePath, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const services = compose.services;

function composePluginPresent(): boolean {
  return spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0;
}

describe('docker-compose.yml', () => {
  // Without the compose plugin (as on the build machines) this shows as skipped and the
  // structural checks below are the validation.
  (composePluginPresent() ? it : it.skip)('parses with `docker compose config`', () => {
    execFileSync('docker', ['compose', '-f', composePath, 'config', '-q'], {
      env: { ...process.env, CONSOLE_TOKEN: 'compose-check-token-0123456789' },
    });
  });

  it('has Temporal on PostgreSQL with its UI, a MongoDB replica set, the api, the worker and the media bridge', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['postgresql', 'temporal', 'temporal-ui', 'mongo1', 'mongo2', 'mongo3', 'mongo-init', 'api', 'worker', 'media']),
    );
    expect(services.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    for (const member of ['mongo1', 'mongo2', 'mongo3']) {
      expect(services[member]!.command).toEqual(['mongod', '--replSet', 'rs0', '--bind_ip_all']);
    }
  });

  it('pins every image to a version', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.image) expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/^[^:]+:\d[\w.-]*$/) });
    }
  });

  it('builds the api, the worker and the media bridge from the Dockerfile, each with its own entry point', () => {
    expect(existsSync(fromRoot('Dockerfile'))).toBe(true);
    for (const name of ['api', 'worker', 'media']) {
      expect(services[name]!.build).toBe('.');
      expect(services[name]!.command).toEqual(['node', `dist/src/main/${name}.js`]);
      expect(existsSync(fromRoot(`src/main/${name}.ts`))).toBe(true);
    }
  });

  it('gives the api, the worker and the media bridge only variables the config module reads, with valid values', () => {
    for (const name of ['api', 'worker', 'media']) {
      const env = services[name]!.environment!;
      for (const key of Object.keys(env)) expect({ service: name, key, known: serviceEnvNames.includes(key as never) }).toEqual({ service: name, key, known: true });
      // Substitute the compose defaults (`${VAR:-default}`) and a stand-in for required ones.
      const resolved = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1').replace(/\$\{[A-Z_]+:\?[^}]*\}/g, 'x'.repeat(32))]),
      );
      // As loadConfig does, an empty value counts as unset.
      expect(() => loadConfig(resolved)).not.toThrow();
      expect(resolved).toMatchObject({ MONGODB_URL: expect.stringContaining('replicaSet=rs0'), TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: 'default', NODE_ENV: 'production' });
    }
    expect(services.api!.environment!.CONSOLE_TOKEN).toMatch(/^\$\{CONSOLE_TOKEN:\?/);
  });

  it('passes Temporal Cloud and Atlas settings through to the api, the worker and the media bridge (docs/deploy.md, "managed")', () => {
    // The certificates' PEM text (…_DATA) stays out: a multi-line secret belongs in a mounted file.
    const passed = ['MONGODB_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', ...Object.keys(temporalConnectionEnv).filter((key) => !key.endsWith('_DATA'))];
    for (const name of ['api', 'worker', 'media']) {
      const env = services[name]!.environment!;
      for (const key of passed) expect({ service: name, key, value: env[key] }).toEqual({ service: name, key, value: expect.stringMatching(new RegExp(`^\\$\\{${key}:-`)) });
    }
  });

  it('registers every search attribute the code sets, before the api and the worker start', () => {
    const registrar = services['temporal-search-attributes']!;
    const registered = (registrar.environment!.SEARCH_ATTRIBUTES ?? '').split(' ').sort();
    expect(registered).toEqual(SEARCH_ATTRIBUTES.map((key) => `${key.name}=${CLI_SEARCH_ATTRIBUTE_TYPE[key.type]}`).sort());
    expect(registrar.command!.join('\n')).toContain('temporal operator search-attribute create');
    for (const name of ['api', 'worker']) {
      expect(services[name]!.depends_on).toMatchObject({ 'temporal-search-attributes': { condition: 'service_completed_successfully' } });
    }
  });

  it('runs the releases and process counts `npm run start:cluster` runs (docs/deploy.md)', () => {
    const tools = readFileSync(fromRoot('scripts/setup-cluster-tools.sh'), 'utf8');
    const pinned = (name: string) => tools.match(new RegExp(`^${name}="([^"]+)"$`, 'm'))?.[1];
    // The Go module the Temporal binaries are built from (scripts/tools-go) pins the server's release.
    const goMod = readFileSync(fromRoot('scripts/tools-go/go.mod'), 'utf8');
    const server = goMod.match(/^\s*go\.temporal\.io\/server (v\S+)/m)?.[1];
    expect(services.temporal!.image).toBe(`temporalio/auto-setup:${server!.replace(/^v/, '')}`);
    expect(services.postgresql!.image).toBe(`postgres:${pinned('POSTGRES_MAJOR')}`);
    // auto-setup's NUM_HISTORY_SHARDS default; a database's shard count is fixed at its creation.
    expect(services.temporal!.environment!.NUM_HISTORY_SHARDS ?? '4').toBe(String(HISTORY_SHARDS));
    const counts = clusterEnvSchema.parse({});
    expect({ api: services.api!.deploy?.replicas, worker: services.worker!.deploy?.replicas, media: services.media!.deploy?.replicas }).toEqual({
      api: counts.CLUSTER_API_PROCESSES,
      worker: counts.CLUSTER_WORKER_PROCESSES,
      media: counts.CLUSTER_MEDIA_PROCESSES,
    });
  });

  it('refers only to services that exist', () => {
    for (const service of Object.values(services)) {
      const deps = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
      for (const dep of deps) expect(Object.keys(services)).toContain(dep);
    }
  });
});
