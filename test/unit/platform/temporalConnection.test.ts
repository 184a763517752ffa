import { ConfigError, loadConfig } from '../../../src/config';
import { describeTemporalConnection, refuseCredentialsForEmbeddedTemporal, temporalConnectionOptions, TemporalSettingsError } from '../../../src/temporal/connectionSettings';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIBclient\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIEsecret\n-----END PRIVATE KEY-----\n';
const CA = '-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n';
const files: Record<string, string> = { '/secrets/client.pem': CERT, '/secrets/client.key': KEY, '/secrets/ca.pem': CA, '/secrets/notes.txt': 'not a certificate' };
const read = (path: string): Buffer => {
  if (!(path in files)) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
  return Buffer.from(files[path]!);
};

/** The start-up error's lines (ConfigError lists one problem a line). */
function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('loadConfig accepted the settings');
}

describe('Temporal connection settings', () => {
  it('connects in plain text to the loopback default: no TLS, no key', () => {
    expect(temporalConnectionOptions(loadConfig({}), read)).toEqual({ address: '127.0.0.1:7233', tls: false });
  });

  it('Temporal Cloud with an API key: TLS with the system CAs and the key as the bearer', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: 'ap-south-1.aws.api.temporal.io:7233', TEMPORAL_NAMESPACE: 'orchestrator.a2b3c', TEMPORAL_API_KEY: 'tcld-key' });
    const options = temporalConnectionOptions(config, read);
    expect(options).toEqual({ address: 'ap-south-1.aws.api.temporal.io:7233', tls: {}, apiKey: 'tcld-key' });
    expect(describeTemporalConnection(options, config.TEMPORAL_NAMESPACE)).toBe('ap-south-1.aws.api.temporal.io:7233, namespace orchestrator.a2b3c, TLS, API key');
  });

  it('Temporal Cloud with a client certificate read from files: mTLS with the pair', () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'orchestrator.a2b3c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'orchestrator.a2b3c',
      TEMPORAL_TLS_CLIENT_CERT_PATH: '/secrets/client.pem',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/secrets/client.key',
    });
    const options = temporalConnectionOptions(config, read);
    expect(options).toEqual({ address: 'orchestrator.a2b3c.tmprl.cloud:7233', tls: { clientCertPair: { crt: Buffer.from(CERT), key: Buffer.from(KEY) } } });
    expect(describeTemporalConnection(options, config.TEMPORAL_NAMESPACE)).toBe('orchestrator.a2b3c.tmprl.cloud:7233, namespace orchestrator.a2b3c, mTLS (client certificate)');
  });

  it('a self-hosted server: the certificate as PEM text, its own CA and server name', () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_TLS_CLIENT_CERT_DATA: CERT,
      TEMPORAL_TLS_CLIENT_KEY_DATA: KEY,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/secrets/ca.pem',
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
    });
    expect(temporalConnectionOptions(config, read).tls).toEqual({
      clientCertPair: { crt: Buffer.from(CERT), key: Buffer.from(KEY) },
      serverRootCACertificate: Buffer.from(CA),
      serverNameOverride: 'frontend.temporal.internal',
    });
  });

  it('TEMPORAL_TLS=true alone: TLS with the system CAs; a server name alone turns TLS on', () => {
    expect(temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TLS: 'true' }), read).tls).toEqual({});
    expect(temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TLS_SERVER_NAME: 'frontend' }), read).tls).toEqual({ serverNameOverride: 'frontend' });
  });

  it.each([
    [{ TEMPORAL_TLS_CLIENT_CERT_PATH: '/secrets/client.pem' }, 'TEMPORAL_TLS_CLIENT_KEY_PATH: required with a client certificate (TEMPORAL_TLS_CLIENT_CERT_*): its private key, or TEMPORAL_TLS_CLIENT_KEY_DATA'],
    [{ TEMPORAL_TLS_CLIENT_KEY_DATA: KEY }, 'TEMPORAL_TLS_CLIENT_CERT_PATH: required with a client key (TEMPORAL_TLS_CLIENT_KEY_*): its certificate, or TEMPORAL_TLS_CLIENT_CERT_DATA'],
    [
      { TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/secrets/ca.pem', TEMPORAL_TLS_SERVER_CA_CERT_DATA: CA },
      'TEMPORAL_TLS_SERVER_CA_CERT_DATA: set either TEMPORAL_TLS_SERVER_CA_CERT_PATH or TEMPORAL_TLS_SERVER_CA_CERT_DATA, not both',
    ],
    [{ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'tcld-key' }, 'TEMPORAL_TLS: false, but TEMPORAL_API_KEY needs TLS: unset TEMPORAL_TLS or those (got "false")'],
    [{ TEMPORAL_TLS: 'yes' }, 'TEMPORAL_TLS: expected true or false (got "yes")'],
    [
      { TEMPORAL_ADDRESS: 'orchestrator.a2b3c.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'orchestrator.a2b3c' },
      'TEMPORAL_API_KEY: required for Temporal Cloud (orchestrator.a2b3c.tmprl.cloud:7233): an API key, or a client certificate (TEMPORAL_TLS_CLIENT_CERT_* and TEMPORAL_TLS_CLIENT_KEY_*)',
    ],
    [
      { TEMPORAL_ADDRESS: 'ap-south-1.aws.api.temporal.io:7233', TEMPORAL_API_KEY: 'tcld-key' },
      'TEMPORAL_NAMESPACE: expected Temporal Cloud\'s namespace, <namespace>.<account id> (e.g. orchestrator.a2b3c), for ap-south-1.aws.api.temporal.io:7233',
    ],
    [
      { TEMPORAL_ADDRESS: 'orchestrator.a2b3c.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'other.a2b3c', TEMPORAL_API_KEY: 'tcld-key' },
      'TEMPORAL_NAMESPACE: orchestrator.a2b3c.tmprl.cloud:7233 is the endpoint of namespace orchestrator.a2b3c, not other.a2b3c (got "other.a2b3c")',
    ],
  ])('refuses %j at start: %s', (env, problem) => {
    expect(problems(env)).toEqual([problem]);
  });

  it('never prints a key or PEM text it refuses', () => {
    const refused = problems({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/secrets/client.pem', TEMPORAL_TLS_CLIENT_KEY_DATA: 'MIIEsecret-without-a-header' });
    expect(refused).toEqual(['TEMPORAL_TLS_CLIENT_KEY_DATA: expected PEM text (a "-----BEGIN …" block) of a private key']);
    expect(problems({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'tcld-secret' }).join('\n')).not.toContain('tcld-secret');
  });

  it('a certificate file that cannot be read or is not PEM stops the connection with the variable and the path', () => {
    const missing = loadConfig({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TLS_CLIENT_CERT_PATH: '/secrets/gone.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: '/secrets/client.key' });
    expect(() => temporalConnectionOptions(missing, read)).toThrow(new TemporalSettingsError('TEMPORAL_TLS_CLIENT_CERT_PATH', 'cannot read /secrets/gone.pem (ENOENT)'));
    const notPem = loadConfig({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/secrets/notes.txt' });
    expect(() => temporalConnectionOptions(notPem, read)).toThrow('TEMPORAL_TLS_SERVER_CA_CERT_PATH: /secrets/notes.txt does not hold PEM text of a CA certificate (no "-----BEGIN …" line)');
  });

  it("the launchers refuse credentials meant for another server: their own Temporal is plain text on loopback", () => {
    expect(() => refuseCredentialsForEmbeddedTemporal(loadConfig({}), '`npm start`')).not.toThrow();
    expect(() => refuseCredentialsForEmbeddedTemporal(loadConfig({ TEMPORAL_TLS: 'false' }), '`npm start`')).not.toThrow();
    expect(() => refuseCredentialsForEmbeddedTemporal(loadConfig({ TEMPORAL_API_KEY: 'tcld-key', TEMPORAL_TLS_SERVER_NAME: 'frontend' }), '`npm run start:cluster`')).toThrow(
      'TEMPORAL_API_KEY: TEMPORAL_API_KEY, TEMPORAL_TLS_SERVER_NAME are set, but `npm run start:cluster` runs its own Temporal on loopback without TLS: unset them, or set TEMPORAL_ADDRESS to the server they are for',
    );
  });
});
