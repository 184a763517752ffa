import { join } from 'node:path';
import { ConfigError, loadConfig, loadLauncherConfig } from '../../../src/config';
import { fromRoot } from '../../../src/local/paths';

describe('loadConfig', () => {
  it('fills every default from an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      API_ENVIRONMENT: 'test',
      MONGODB_URL: 'mongodb://127.0.0.1:27017/',
      MONGODB_DB: 'orchestrator',
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'orchestrator-v1',
      WORKER_METRICS_PORT: 9464,
      LOG_LEVEL: 'info',
    });
    expect(config.CONSOLE_TOKEN).toBeUndefined();
  });

  it('speaks Chat Completions, not streamed, to a chat agent model unless told', () => {
    expect(loadConfig({})).toMatchObject({ AGENT_MODEL_API: 'chat_completions', AGENT_MODEL_STREAM: 'false' });
    expect(loadConfig({ AGENT_MODEL_API: 'responses', AGENT_MODEL_STREAM: 'true' })).toMatchObject({ AGENT_MODEL_API: 'responses', AGENT_MODEL_STREAM: 'true' });
  });

  it('reads numbers from their text', () => {
    expect(loadConfig({ PORT: '8080' }).PORT).toBe(8080);
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ PORT: '', MONGODB_URL: '' })).toMatchObject({ PORT: 3000, MONGODB_URL: 'mongodb://127.0.0.1:27017/' });
  });

  it.each([
    ['PORT', 'abc', /^ {2}PORT: expected a port number \(got "abc"\)$/m],
    ['PORT', '70000', /^ {2}PORT: expected a port from 1 to 65535 \(got "70000"\)$/m],
    ['MONGODB_URL', 'postgres://x', /^ {2}MONGODB_URL: expected a mongodb:\/\/ or mongodb\+srv:\/\/ URL/m],
    ['TEMPORAL_ADDRESS', 'localhost', /^ {2}TEMPORAL_ADDRESS: expected host:port/m],
    ['API_ENVIRONMENT', 'prod', /^ {2}API_ENVIRONMENT: /m],
    ['CONSOLE_TOKEN', 'short', /^ {2}CONSOLE_TOKEN: expected at least 16 characters/m],
    ['AGENT_MODEL_API', 'completions', /^ {2}AGENT_MODEL_API: .*"chat_completions"\|"responses"/m],
    ['AGENT_MODEL_STREAM', 'yes', /^ {2}AGENT_MODEL_STREAM: expected true or false/m],
  ])('refuses %s=%s with a message naming the variable', (name, value, message) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toMatch(/^Invalid configuration:\n/);
    expect((caught as ConfigError).message).toMatch(message);
  });

  it('keeps recordings in DATA_DIR unless MEDIA_RECORDINGS_DIR says where', () => {
    expect(loadConfig({}).MEDIA_RECORDINGS_DIR).toBe(join(fromRoot('.data'), 'recordings'));
    expect(loadConfig({ DATA_DIR: '/srv/orchestrator' }).MEDIA_RECORDINGS_DIR).toBe('/srv/orchestrator/recordings');
    expect(loadConfig({ DATA_DIR: 'elsewhere' }).MEDIA_RECORDINGS_DIR).toBe(join(fromRoot('elsewhere'), 'recordings'));
    expect(loadConfig({ DATA_DIR: '/srv/orchestrator', MEDIA_RECORDINGS_DIR: '/var/lib/recordings' }).MEDIA_RECORDINGS_DIR).toBe('/var/lib/recordings');
  });

  it('reads the retention ages, refusing trail rows kept longer than transcripts and deliveries kept longer than their events', () => {
    expect(loadConfig({})).toMatchObject({ TRANSCRIPT_RETENTION_DAYS: 365, TRAIL_RETENTION_DAYS: 90, DELIVERY_RETENTION_DAYS: 7 });
    expect(loadConfig({ TRANSCRIPT_RETENTION_DAYS: '30', TRAIL_RETENTION_DAYS: '30', DELIVERY_RETENTION_DAYS: '2' })).toMatchObject({
      TRANSCRIPT_RETENTION_DAYS: 30,
      TRAIL_RETENTION_DAYS: 30,
      DELIVERY_RETENTION_DAYS: 2,
    });
    // Unset, the trail's age follows a shorter transcript age instead of refusing to start.
    expect(loadConfig({ TRANSCRIPT_RETENTION_DAYS: '30' })).toMatchObject({ TRANSCRIPT_RETENTION_DAYS: 30, TRAIL_RETENTION_DAYS: 30 });
    expect(() => loadConfig({ TRANSCRIPT_RETENTION_DAYS: '30', TRAIL_RETENTION_DAYS: '31' })).toThrow(/^ {2}TRAIL_RETENTION_DAYS: expected at most TRANSCRIPT_RETENTION_DAYS/m);
    expect(() => loadConfig({ DELIVERY_RETENTION_DAYS: '8' })).toThrow(/^ {2}DELIVERY_RETENTION_DAYS: expected days from 2 to 7 \(got "8"\)$/m);
    expect(() => loadConfig({ TRANSCRIPT_RETENTION_DAYS: '0.5' })).toThrow(/^ {2}TRANSCRIPT_RETENTION_DAYS: expected a whole number/m);
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', WORKER_METRICS_PORT: 'y' })).toThrow(
      /PORT: expected a port number[\s\S]*WORKER_METRICS_PORT: expected a port number/,
    );
  });
});

describe('loadLauncherConfig', () => {
  it('defaults the embedded servers to their usual ports and a local data folder', () => {
    expect(loadLauncherConfig({})).toEqual({
      DATA_DIR: '.data',
      TOOLS_DIR: '.tools',
      TEMPORAL_PORT: 7233,
      TEMPORAL_UI_PORT: 8233,
      FERRETDB_PORT: 27017,
    });
  });

  it('refuses a bad port naming it', () => {
    expect(() => loadLauncherConfig({ FERRETDB_PORT: '0' })).toThrow(/FERRETDB_PORT: expected a port from 1 to 65535/);
  });

  it('reads the liveness settings, and refuses one out of range naming it', () => {
    expect(loadLauncherConfig({ LIVENESS_INTERVAL_MS: '500', LIVENESS_TIMEOUT_MS: '2000', LIVENESS_FAILURES: '2' })).toMatchObject({
      LIVENESS_INTERVAL_MS: 500,
      LIVENESS_TIMEOUT_MS: 2000,
      LIVENESS_FAILURES: 2,
    });
    expect(() => loadLauncherConfig({ LIVENESS_INTERVAL_MS: '50' })).toThrow('LIVENESS_INTERVAL_MS: expected milliseconds from 100 to 600000 (got "50")');
    expect(() => loadLauncherConfig({ LIVENESS_FAILURES: '0' })).toThrow('LIVENESS_FAILURES: expected 1 or more (got "0")');
  });

  it('reads the restart pauses, and refuses one out of range naming it', () => {
    expect(loadLauncherConfig({ RESTART_BACKOFF_MS: '200', RESTART_MAX_BACKOFF_MS: '2000' })).toMatchObject({ RESTART_BACKOFF_MS: 200, RESTART_MAX_BACKOFF_MS: 2000 });
    expect(loadLauncherConfig({}).RESTART_MAX_BACKOFF_MS).toBeUndefined();
    expect(() => loadLauncherConfig({ RESTART_MAX_BACKOFF_MS: '3600001' })).toThrow('RESTART_MAX_BACKOFF_MS: expected milliseconds from 100 to 3600000 (got "3600001")');
  });
});

describe('RATE_LIMIT_STORE', () => {
  it('defaults to the shared MongoDB store and accepts memory', () => {
    expect(loadConfig({}).RATE_LIMIT_STORE).toBe('mongodb');
    expect(loadConfig({ RATE_LIMIT_STORE: 'memory' }).RATE_LIMIT_STORE).toBe('memory');
    expect(() => loadConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE: /);
  });
});
