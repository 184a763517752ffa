import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { z } from 'zod';

/**
 * How our processes reach a Temporal that is not on loopback (docs/deploy.md, "Temporal's
 * settings"): TLS with a client certificate (mTLS, Temporal Cloud's or a self-hosted server's),
 * a server CA and name, or a Temporal Cloud API key. The variables are the ones Temporal's own
 * client environment configuration reads (the Temporal CLI, the SDKs' envconfig), so settings an
 * operator already uses with `temporal` work here unchanged. src/config.ts reads them with every
 * other setting; the certificates are read from their files when a process connects, at start.
 */

const pem = (what: string) => z.string().refine((value) => value.includes('-----BEGIN '), `expected PEM text (a "-----BEGIN …" block) of ${what}`);

export const temporalConnectionEnv = {
  /** A Temporal Cloud API key: sent as `Authorization: Bearer …`; turns TLS on. */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** `true` or `false`; unset: on when a key, a certificate or a CA is set, else off (loopback, compose's private network). */
  TEMPORAL_TLS: z.enum(['true', 'false'], { error: 'expected true or false' }).optional(),
  /** The client certificate for mTLS, as a file or as its PEM text; with its key. */
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_DATA: pem('a certificate').optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: pem('a private key').optional(),
  /** The CA that signed the server's certificate, when it is not one the system trusts (a self-hosted server). */
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: pem('a CA certificate').optional(),
  /** The name the server's certificate carries, when it is not the address's host. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
};

type TemporalEnvKey = keyof typeof temporalConnectionEnv;
export type TemporalConnectionConfig = { TEMPORAL_ADDRESS: string; TEMPORAL_NAMESPACE: string } & { [K in TemporalEnvKey]?: string };

interface Issue {
  path: string;
  message: string;
}

/** Temporal Cloud's endpoints: `<namespace>.<account>.tmprl.cloud` (mTLS) and `<region>.<cloud>.api.temporal.io` (API keys). */
const CLOUD_HOST = /\.(tmprl\.cloud|api\.temporal\.io)$/;
/** A Cloud namespace is always `<name>.<account id>`. */
const CLOUD_NAMESPACE = /^[a-z0-9][a-z0-9-]*\.[a-z0-9]+$/;

/**
 * What no single variable's check can see, each with the variable to change: a certificate
 * without its key, a file and its text both given, TLS turned off under credentials that need
 * it, and Temporal Cloud's address without credentials or with a namespace Cloud cannot have.
 */
export function temporalConnectionIssues(config: TemporalConnectionConfig): Issue[] {
  const issues: Issue[] = [];
  for (const [path, data] of [
    ['TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_CLIENT_CERT_DATA'],
    ['TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_TLS_CLIENT_KEY_DATA'],
    ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'TEMPORAL_TLS_SERVER_CA_CERT_DATA'],
  ] as const) {
    if (config[path] && config[data]) issues.push({ path: data, message: `set either ${path} or ${data}, not both` });
  }
  const cert = Boolean(config.TEMPORAL_TLS_CLIENT_CERT_PATH ?? config.TEMPORAL_TLS_CLIENT_CERT_DATA);
  const key = Boolean(config.TEMPORAL_TLS_CLIENT_KEY_PATH ?? config.TEMPORAL_TLS_CLIENT_KEY_DATA);
  if (cert && !key) issues.push({ path: 'TEMPORAL_TLS_CLIENT_KEY_PATH', message: 'required with a client certificate (TEMPORAL_TLS_CLIENT_CERT_*): its private key, or TEMPORAL_TLS_CLIENT_KEY_DATA' });
  if (key && !cert) issues.push({ path: 'TEMPORAL_TLS_CLIENT_CERT_PATH', message: 'required with a client key (TEMPORAL_TLS_CLIENT_KEY_*): its certificate, or TEMPORAL_TLS_CLIENT_CERT_DATA' });
  if (config.TEMPORAL_TLS === 'false') {
    const needing = (
      [
        'TEMPORAL_API_KEY',
        'TEMPORAL_TLS_CLIENT_CERT_PATH',
        'TEMPORAL_TLS_CLIENT_CERT_DATA',
        'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
        'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
        'TEMPORAL_TLS_SERVER_NAME',
      ] as const
    ).filter((name) => config[name]);
    // An API key over plain text would hand it to anyone on the path.
    if (needing.length) issues.push({ path: 'TEMPORAL_TLS', message: `false, but ${needing.join(', ')} ${needing.length > 1 ? 'need' : 'needs'} TLS: unset TEMPORAL_TLS or those` });
  }
  const host = config.TEMPORAL_ADDRESS.replace(/:\d+$/, '');
  if (CLOUD_HOST.test(host)) {
    if (!config.TEMPORAL_API_KEY && !cert) {
      issues.push({ path: 'TEMPORAL_API_KEY', message: `required for Temporal Cloud (${config.TEMPORAL_ADDRESS}): an API key, or a client certificate (TEMPORAL_TLS_CLIENT_CERT_* and TEMPORAL_TLS_CLIENT_KEY_*)` });
    }
    if (!CLOUD_NAMESPACE.test(config.TEMPORAL_NAMESPACE)) {
      issues.push({ path: 'TEMPORAL_NAMESPACE', message: `expected Temporal Cloud's namespace, <namespace>.<account id> (e.g. orchestrator.a2b3c), for ${config.TEMPORAL_ADDRESS}` });
    } else if (host.endsWith('.tmprl.cloud') && host !== `${config.TEMPORAL_NAMESPACE}.tmprl.cloud`) {
      issues.push({ path: 'TEMPORAL_NAMESPACE', message: `${config.TEMPORAL_ADDRESS} is the endpoint of namespace ${host.replace(/\.tmprl\.cloud$/, '')}, not ${config.TEMPORAL_NAMESPACE}` });
    }
  }
  return issues;
}

/** A setting that cannot be used as given, naming its variable (start-up prints it and stops). */
export class TemporalSettingsError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'TemporalSettingsError';
  }
}

export interface TemporalConnectionOptions {
  address: string;
  /** false: plain text; otherwise the SDK's TLS settings (`{}`: TLS with the system's CAs, no client certificate). */
  tls: TLSConfig | false;
  apiKey?: string;
}

/** Reads a file's PEM text, or says which variable points at what cannot be read. */
function pemFile(variable: string, path: string, what: string, read: (path: string) => Buffer): Buffer {
  let text: Buffer;
  try {
    text = read(path);
  } catch (err) {
    throw new TemporalSettingsError(variable, `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!text.includes('-----BEGIN ')) throw new TemporalSettingsError(variable, `${path} does not hold PEM text of ${what} (no "-----BEGIN …" line)`);
  return text;
}

/**
 * The options both connections take (`Connection.connect` of @temporalio/client and
 * `NativeConnection.connect` of @temporalio/worker share `address`, `tls` and `apiKey`), with
 * the certificates read now: called when a process connects, at its start, so a missing or
 * unreadable file stops it with the variable's name.
 */
export function temporalConnectionOptions(config: TemporalConnectionConfig, read: (path: string) => Buffer = (path) => readFileSync(path)): TemporalConnectionOptions {
  const material = (pathVar: TemporalEnvKey, dataVar: TemporalEnvKey, what: string): Buffer | undefined => {
    const path = config[pathVar];
    if (path) return pemFile(pathVar, path, what, read);
    const data = config[dataVar];
    return data ? Buffer.from(data) : undefined;
  };
  const crt = material('TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_CLIENT_CERT_DATA', 'a certificate');
  const key = material('TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_TLS_CLIENT_KEY_DATA', 'a private key');
  const ca = material('TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'TEMPORAL_TLS_SERVER_CA_CERT_DATA', 'a CA certificate');
  const serverName = config.TEMPORAL_TLS_SERVER_NAME;
  const wanted = config.TEMPORAL_TLS === undefined ? Boolean(config.TEMPORAL_API_KEY ?? crt ?? ca ?? serverName) : config.TEMPORAL_TLS === 'true';
  const tls: TLSConfig | false = wanted
    ? {
        ...(crt && key ? { clientCertPair: { crt, key } } : {}),
        ...(ca ? { serverRootCACertificate: ca } : {}),
        ...(serverName ? { serverNameOverride: serverName } : {}),
      }
    : false;
  return { address: config.TEMPORAL_ADDRESS, tls, ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}) };
}

/** One line for a start-up log: where and how, never the secrets. */
export function describeTemporalConnection(options: TemporalConnectionOptions, namespace: string): string {
  const how = options.tls === false ? 'plain text' : [options.tls.clientCertPair ? 'mTLS (client certificate)' : 'TLS', options.tls.serverRootCACertificate ? 'own CA' : null].filter(Boolean).join(', ');
  return `${options.address}, namespace ${namespace}, ${how}${options.apiKey ? ', API key' : ''}`;
}

/**
 * The launchers' own Temporal (`npm start`'s dev server, `npm run start:cluster`'s frontend)
 * listens on loopback in plain text: TLS or key settings left in the environment would make
 * every child's connection fail with a handshake error far from its cause, so the launcher
 * refuses them at once, naming them.
 */
export function refuseCredentialsForEmbeddedTemporal(config: TemporalConnectionConfig, launcher: string): void {
  const set = (Object.keys(temporalConnectionEnv) as TemporalEnvKey[]).filter((name) => config[name] !== undefined && !(name === 'TEMPORAL_TLS' && config[name] === 'false'));
  if (set.length) {
    throw new TemporalSettingsError(set[0]!, `${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set, but ${launcher} runs its own Temporal on loopback without TLS: unset ${set.length > 1 ? 'them' : 'it'}, or set TEMPORAL_ADDRESS to the server ${set.length > 1 ? 'they are' : 'it is'} for`);
  }
}
