import { join } from 'node:path';
import { z } from 'zod';
import { fromRoot } from './local/paths';
import { temporalConnectionEnv, temporalConnectionIssues } from './temporal/connectionSettings';

/** VOICE_ORIGINATE_ATTEMPTS when unset; also what a worker built without configuration (tests) uses. */
export const VOICE_ORIGINATE_ATTEMPTS_DEFAULT = 6;

/**
 * How long a stored event is kept: a week. The retry schedule ends about 30 h after the first
 * attempt, so no delivery still running loses its event, and an event can be replayed from the
 * console for a week (docs/webhooks.md). Also the most DELIVERY_RETENTION_DAYS may be: a
 * delivery kept longer than its event could not be replayed.
 */
export const EVENT_RETENTION_DAYS = 7;

/**
 * The one place every setting is read from the environment, with its default. Processes
 * call `loadConfig()` once at start; a bad value stops start-up with a message that names
 * the variable, never a half-configured process.
 */

const port = z.coerce
  .number({ error: 'expected a port number' })
  .int('expected a whole number')
  .min(1, 'expected a port from 1 to 65535')
  .max(65535, 'expected a port from 1 to 65535');

const hostPort = z.string().regex(/^[^\s:/]+:\d{1,5}$/, 'expected host:port, e.g. 127.0.0.1:7233');

/** A wait in milliseconds, whole, from 100 to `max`. */
const milliseconds = (max: number) =>
  z.coerce
    .number({ error: 'expected milliseconds' })
    .int('expected a whole number')
    .min(100, `expected milliseconds from 100 to ${max}`)
    .max(max, `expected milliseconds from 100 to ${max}`);

/** A retention age in whole days, from `min` to ten years. */
const retentionDays = (min: number, max = 3_650) =>
  z.coerce
    .number({ error: 'expected days' })
    .int('expected a whole number')
    .min(min, `expected days from ${min} to ${max}`)
    .max(max, `expected days from ${min} to ${max}`);

const httpUrl = z.string().regex(/^https?:\/\/\S+$/, 'expected an http:// or https:// URL');

export const serviceEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Interface the API binds to. */
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  /** Which keys this deployment accepts: `test` keys outside production, `live` keys in it. */
  API_ENVIRONMENT: z.enum(['live', 'test']).default('test'),
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'expected a mongodb:// or mongodb+srv:// URL')
    .default('mongodb://127.0.0.1:27017/'),
  MONGODB_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'expected a database name of letters, digits, _ or -')
    .default('orchestrator'),
  TEMPORAL_ADDRESS: hostPort.default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** TLS and Temporal Cloud's API key (src/temporal/connectionSettings.ts, docs/deploy.md). */
  ...temporalConnectionEnv,
  /** Versioned so that an incompatible worker rollout can move to a new queue. */
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('orchestrator-v1'),
  /** Admin token for /console/v1. Required by the API process; the launcher generates one. */
  CONSOLE_TOKEN: z.string().min(16, 'expected at least 16 characters').optional(),
  /**
   * Signs pagination cursors. Every API replica needs the same value; when unset it is
   * derived from CONSOLE_TOKEN, which replicas already share.
   */
  CURSOR_SECRET: z.string().min(16, 'expected at least 16 characters').optional(),
  /**
   * Where request counts per key live: `mongodb` (shared by every API replica) or `memory`
   * (one API process only; no database write per request).
   */
  RATE_LIMIT_STORE: z.enum(['mongodb', 'memory']).default('mongodb'),
  /**
   * Failed authentication attempts (API keys, the console token) one address may make per
   * window before its further attempts are refused with 429 until the window ends; counted
   * in each API process's memory (src/auth/failureLimiter.ts).
   */
  AUTH_FAILURE_LIMIT: z.coerce.number({ error: 'expected a number' }).int('expected a whole number').min(1, 'expected at least 1').default(30),
  AUTH_FAILURE_WINDOW_SECONDS: z.coerce
    .number({ error: 'expected seconds' })
    .int('expected a whole number')
    .min(1, 'expected seconds from 1 to 3600')
    .max(3600, 'expected seconds from 1 to 3600')
    .default(60),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Channels this deployment offers, comma-separated (`whatsapp`, `voice`). A call on a
   * deployment without `voice` is refused with `unsupported_channel`.
   */
  DEPLOYMENT_CHANNELS: z
    .string()
    .regex(/^(whatsapp|voice)(,(whatsapp|voice))*$/, 'expected a comma-separated list of whatsapp and voice')
    .default('whatsapp,voice')
    .transform((value) => [...new Set(value.split(','))] as ('whatsapp' | 'voice')[]),
  /** The worker's own HTTP port: /metrics and /healthz. */
  WORKER_METRICS_PORT: port.default(9464),
  /**
   * Retention, applied by each worker's retention pass in small paced batches
   * (docs/decisions/platform.md "Expiry and retention"). Conversation turns (the transcripts
   * `GET /api/v1/conversations/{id}/messages` reads, voice calls' included) and the transcript
   * stored on each call go this many days after they were recorded.
   */
  TRANSCRIPT_RETENTION_DAYS: retentionDays(1).default(365),
  /**
   * Trail rows (lookups, tool runs, hold lines: never shown publicly) go sooner; at most
   * TRANSCRIPT_RETENTION_DAYS. Unset: 90 days, or the transcripts' age when that is shorter.
   */
  TRAIL_RETENTION_DAYS: retentionDays(1).optional(),
  /** Webhook deliveries with their attempts: at least 2 days (the retries end after about 30 h), at most the events' week. */
  DELIVERY_RETENTION_DAYS: retentionDays(2, EVENT_RETENTION_DAYS).default(EVENT_RETENTION_DAYS),
  /**
   * Whether webhook endpoints may point at private, loopback or link-local addresses.
   * Unset: allowed unless NODE_ENV is production (local development and tests deliver to
   * 127.0.0.1); see webhookPrivateUrlsAllowed.
   */
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false'], { error: 'expected true or false' }).optional(),
  /**
   * Who reads finished calls: `simulator` (deterministic, reads the transcript's text;
   * scriptable failures) or `openai` (an OpenAI-compatible chat-completions endpoint, which
   * needs the three settings below).
   */
  READER_PROVIDER: z.enum(['simulator', 'openai']).default('simulator'),
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  READER_BASE_URL: httpUrl.optional(),
  READER_API_KEY: z.string().min(1).optional(),
  READER_MODEL: z.string().min(1).optional(),
  /** How long one read request may take before it counts as a temporary failure. */
  READER_TIMEOUT_MS: milliseconds(600_000).default(30_000),
  /**
   * Who answers WhatsApp customers as a chat agent (docs/agents.md): `simulator` (the default:
   * deterministic, offline, uses the tools it is offered when the text fits) or `openai` (an
   * OpenAI-compatible endpoint through @openai/agents, which needs the three settings below).
   */
  AGENT_MODEL_PROVIDER: z.enum(['simulator', 'openai']).default('simulator'),
  /** e.g. `https://api.openai.com/v1`; the SDK appends `/chat/completions` or `/responses` (AGENT_MODEL_API). */
  AGENT_MODEL_BASE_URL: httpUrl.optional(),
  AGENT_MODEL_API_KEY: z.string().min(1).optional(),
  AGENT_MODEL: z.string().min(1).optional(),
  /**
   * Which API of the endpoint the chat agent speaks: `chat_completions` (the default: what
   * OpenAI-compatible servers share) or `responses` (OpenAI's newer API). docs/decisions/agents.md.
   */
  AGENT_MODEL_API: z.enum(['chat_completions', 'responses']).default('chat_completions'),
  /** `true`: each model call asks for server-sent events and reads the finished response at the stream's end. */
  AGENT_MODEL_STREAM: z.enum(['true', 'false'], { error: 'expected true or false' }).default('false'),
  /** How long one model call may take before the turn's step is tried again. */
  AGENT_MODEL_TIMEOUT_MS: milliseconds(300_000).default(30_000),
  /** A burst of customer messages is one turn once the customer has been quiet this long. */
  AGENT_BURST_QUIET_MS: milliseconds(60_000).default(1_500),
  /** A conversation held for a person goes back to the agent after this many minutes without a team reply. */
  AGENT_HOLD_TIMEOUT_MINUTES: z.coerce.number({ error: 'expected minutes' }).int('expected a whole number').min(1).max(10_080).default(60),
  /**
   * How the simulated callee reports a call's line events (answered, handoff, ended):
   * `timers` in the worker that placed the call, from a stored schedule, with the worker's
   * sweep taking over a dead process's calls (no workflow per call); `workflow` a
   * `simulatedCallee` workflow per call, as before issue 13 (its timers are durable and the
   * time-skipping test server moves them).
   */
  VOICE_SIMULATOR: z.enum(['timers', 'workflow']).default('timers'),
  /**
   * Who carries calls: `simulator` (the default: a scripted network and callee, nothing leaves
   * the machine), `twilio` (real calls through Twilio's Programmable Voice REST API, which
   * needs the account SID, auth token, public URL and media stream URL below; docs/voice.md) or
   * `plivo` (Plivo's Voice API and Audio Streaming, with the PLIVO_* settings below).
   */
  VOICE_PROVIDER: z.enum(['simulator', 'twilio', 'plivo']).default('simulator'),
  /**
   * How many times the worker asks the voice provider to place a call before it gives the call
   * up as `failed` `originate_error` (a provider that cannot be reached; a refusal ends it at
   * once). 6: about 30 s of backoff when the provider refuses connections, a few minutes when
   * each attempt waits out TWILIO_TIMEOUT_MS (docs/decisions/calls.md, "A call's place").
   */
  VOICE_ORIGINATE_ATTEMPTS: z.coerce.number({ error: 'expected a count' }).int('expected a whole number').min(1, 'expected 1 or more').max(20, 'expected at most 20').default(VOICE_ORIGINATE_ATTEMPTS_DEFAULT),
  /** The Twilio account calls are placed on (`AC…`). */
  TWILIO_ACCOUNT_SID: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'expected an account SID: AC and 32 hex digits').optional(),
  /** Authenticates REST requests and signs Twilio's webhooks (X-Twilio-Signature). */
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /**
   * This deployment's public origin as Twilio reaches it (e.g. `https://voice.example.com`):
   * status callbacks go to `<it>/webhooks/twilio/status`, and every webhook's signature is
   * checked over `<it>` plus the request's path and query.
   */
  TWILIO_PUBLIC_URL: z
    .string()
    .regex(/^https?:\/\/[^\s/]+(\/[^\s]*[^\s/])?$/, 'expected an http:// or https:// origin (optionally a path), without a trailing slash')
    .optional(),
  /** The media process's public WebSocket URL that Twilio Media Streams connect to (`wss://…`). */
  TWILIO_MEDIA_STREAM_URL: z.string().regex(/^wss?:\/\/\S+$/, 'expected a ws:// or wss:// URL').optional(),
  /**
   * Where the REST API is (default Twilio's own); tests point the `twilio` client at a local
   * fake with it (test/support/fakeTwilio.ts). The request path is kept, only the origin changes.
   */
  TWILIO_API_BASE_URL: z.string().regex(/^https?:\/\/[^\s/]+$/, 'expected an http:// or https:// origin without a path').default('https://api.twilio.com'),
  TWILIO_TIMEOUT_MS: milliseconds(60_000).default(10_000),
  /** The Plivo account calls are placed on (its Auth ID, `MA…` or `SA…`). */
  PLIVO_AUTH_ID: z.string().regex(/^[A-Z0-9]{20}$/, 'expected an Auth ID: 20 capital letters and digits').optional(),
  /** Authenticates REST requests and signs Plivo's requests (X-Plivo-Signature-V3). */
  PLIVO_AUTH_TOKEN: z.string().min(1).optional(),
  /** This deployment's public origin as Plivo reaches it: webhooks under `<it>/webhooks/plivo/…`, signatures checked over it. */
  PLIVO_PUBLIC_URL: z
    .string()
    .regex(/^https?:\/\/[^\s/]+(\/[^\s]*[^\s/])?$/, 'expected an http:// or https:// origin (optionally a path), without a trailing slash')
    .optional(),
  /** The media process's public WebSocket URL Plivo's audio streams connect to (`wss://…/media-stream`). */
  PLIVO_MEDIA_STREAM_URL: z.string().regex(/^wss?:\/\/\S+$/, 'expected a ws:// or wss:// URL').optional(),
  /**
   * Where the Voice API is (default Plivo's own). The `plivo` package sends call requests to a
   * fixed https://api.plivo.com, so another origin (a local fake in tests) is reached through the
   * package's own request function pointed at it (src/providers/voice/plivo/restClient.ts).
   */
  PLIVO_API_BASE_URL: z.string().regex(/^https?:\/\/[^\s/]+$/, 'expected an http:// or https:// origin without a path').default('https://api.plivo.com'),
  PLIVO_TIMEOUT_MS: milliseconds(60_000).default(10_000),
  /**
   * Who carries WhatsApp messages: `simulator` (nothing leaves the machine; scriptable per
   * recipient in the console) or `cloud` (the WhatsApp Business Platform Cloud API, which
   * needs the access token and phone-number id below; its webhook also needs the app secret
   * and verify token).
   */
  WHATSAPP_PROVIDER: z.enum(['simulator', 'cloud']).default('simulator'),
  /** Graph API root with its version; `/{phone-number-id}/messages` is appended. */
  WHATSAPP_CLOUD_BASE_URL: httpUrl.default('https://graph.facebook.com/v21.0'),
  WHATSAPP_CLOUD_ACCESS_TOKEN: z.string().min(1).optional(),
  /** The phone-number id messages are sent from. */
  WHATSAPP_CLOUD_PHONE_NUMBER_ID: z.string().regex(/^\d+$/, 'expected the numeric phone-number id').optional(),
  /** Several business numbers: `+<sender digits>=<phone-number id>` pairs, comma-separated. */
  WHATSAPP_CLOUD_PHONE_NUMBER_IDS: z
    .string()
    .regex(/^\+?\d+=\d+(,\+?\d+=\d+)*$/, 'expected +<digits>=<phone-number id> pairs, comma-separated')
    .optional(),
  /** Signs the Cloud API's webhook deliveries (X-Hub-Signature-256). */
  WHATSAPP_CLOUD_APP_SECRET: z.string().min(1).optional(),
  /** What the webhook subscription challenge must present as hub.verify_token. */
  WHATSAPP_CLOUD_VERIFY_TOKEN: z.string().min(1).optional(),
  WHATSAPP_CLOUD_TIMEOUT_MS: milliseconds(60_000).default(10_000),
  /**
   * The dues app's payment links: the deterministic simulator, or `razorpay` (Razorpay Payment
   * Links, which needs the key id and secret; its paid webhook at /webhooks/razorpay needs the
   * webhook secret).
   */
  PAYMENT_LINK_PROVIDER: z.enum(['simulator', 'razorpay']).default('simulator'),
  RAZORPAY_BASE_URL: httpUrl.default('https://api.razorpay.com'),
  RAZORPAY_KEY_ID: z.string().min(1).optional(),
  RAZORPAY_KEY_SECRET: z.string().min(1).optional(),
  /** Signs Razorpay's webhook deliveries (X-Razorpay-Signature). */
  RAZORPAY_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** The media process's HTTP port: the media-stream WebSocket (/media-stream), /healthz and /metrics. */
  MEDIA_PORT: port.default(3100),
  /**
   * Set by the launcher (`npm start`) for its children: the file where it keeps the state of
   * each child (src/local/childrenStatus.ts), which the API's /readyz reports. Unset elsewhere.
   */
  LAUNCHER_STATUS_FILE: z.string().min(1).optional(),
  /**
   * The realtime speech model the media process bridges a call's audio to: any endpoint that
   * speaks the OpenAI Realtime WebSocket protocol. `?model=` is added unless the URL has one.
   */
  REALTIME_URL: z.string().regex(/^wss?:\/\/\S+$/, 'expected a ws:// or wss:// URL').default('wss://api.openai.com/v1/realtime'),
  REALTIME_MODEL: z.string().min(1).default('gpt-realtime'),
  /** Sent as the bearer token. Unset: the media process runs, and each call it is asked to bridge ends as `setup_error`. */
  REALTIME_API_KEY: z.string().min(1).optional(),
  /**
   * Where the media process writes recordings (`<dir>/<workspace>/<call>.wav`); relative to the
   * working directory. Unset: `recordings` in DATA_DIR (loadConfig), so `npm start` keeps them
   * with the rest of its data, never in the checkout when DATA_DIR points elsewhere.
   */
  MEDIA_RECORDINGS_DIR: z.string().min(1).optional(),
  /**
   * A ceiling on any call's length on the media process, below the agent's own maximum
   * (the call ends as `max_duration` at whichever comes first). Unset: the agent's maximum.
   */
  MEDIA_MAX_CALL_SECONDS: z.coerce.number({ error: 'expected seconds' }).min(1, 'expected at least 1 second').max(86_400, 'expected at most 86400 seconds').optional(),
  /**
   * How long a tool the voice agent called mid-call may run before the agent says a hold line
   * ("one moment") instead of leaving the caller in silence. A person on a phone starts to
   * wonder after about a second and a half of dead air.
   */
  MEDIA_TOOL_HOLD_MS: z.coerce.number({ error: 'expected milliseconds' }).int().min(200, 'expected at least 200 ms').max(10_000, 'expected at most 10000 ms').default(1_500),
  /** How long a tool may run on a live call at all: past it the agent is told the tool did not answer, and the call goes on. */
  MEDIA_TOOL_TIMEOUT_MS: z.coerce.number({ error: 'expected milliseconds' }).int().min(1_000, 'expected at least 1000 ms').max(60_000, 'expected at most 60000 ms').default(10_000),
}).superRefine((env, ctx) => {
  for (const issue of temporalConnectionIssues(env)) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
  if (env.TRAIL_RETENTION_DAYS !== undefined && env.TRAIL_RETENTION_DAYS > env.TRANSCRIPT_RETENTION_DAYS) {
    ctx.addIssue({ code: 'custom', path: ['TRAIL_RETENTION_DAYS'], message: 'expected at most TRANSCRIPT_RETENTION_DAYS (trail rows go with their transcript)' });
  }
  if (env.READER_PROVIDER === 'openai') {
    for (const name of ['READER_BASE_URL', 'READER_API_KEY', 'READER_MODEL'] as const) {
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'required when READER_PROVIDER is openai' });
    }
  }
  if (env.AGENT_MODEL_PROVIDER === 'openai') {
    for (const name of ['AGENT_MODEL_BASE_URL', 'AGENT_MODEL_API_KEY', 'AGENT_MODEL'] as const) {
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'required when AGENT_MODEL_PROVIDER is openai' });
    }
  }
  if (env.WHATSAPP_PROVIDER === 'cloud') {
    for (const name of ['WHATSAPP_CLOUD_ACCESS_TOKEN', 'WHATSAPP_CLOUD_PHONE_NUMBER_ID'] as const) {
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'required when WHATSAPP_PROVIDER is cloud' });
    }
  }
  if (env.VOICE_PROVIDER === 'twilio') {
    for (const name of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_PUBLIC_URL', 'TWILIO_MEDIA_STREAM_URL'] as const) {
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'required when VOICE_PROVIDER is twilio' });
    }
  }
  if (env.VOICE_PROVIDER === 'plivo') {
    for (const name of ['PLIVO_AUTH_ID', 'PLIVO_AUTH_TOKEN', 'PLIVO_PUBLIC_URL', 'PLIVO_MEDIA_STREAM_URL'] as const) {
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'required when VOICE_PROVIDER is plivo' });
    }
  }
  if (env.PAYMENT_LINK_PROVIDER === 'razorpay') {
    for (const name of ['RAZORPAY_KEY_ID', 'RAZORPAY_KEY_SECRET'] as const) {
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'required when PAYMENT_LINK_PROVIDER is razorpay' });
    }
  }
});

export type Config = Omit<z.infer<typeof serviceEnvSchema>, 'MEDIA_RECORDINGS_DIR' | 'TRAIL_RETENTION_DAYS'> & { MEDIA_RECORDINGS_DIR: string; TRAIL_RETENTION_DAYS: number };

/** Trail rows' age when none is set: 90 days, never longer than the transcripts they belong to. */
const DEFAULT_TRAIL_RETENTION_DAYS = 90;

/** WEBHOOK_ALLOW_PRIVATE_URLS when set, else true everywhere but production. */
export function webhookPrivateUrlsAllowed(config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE_URLS' | 'NODE_ENV'>): boolean {
  return config.WEBHOOK_ALLOW_PRIVATE_URLS === undefined ? config.NODE_ENV !== 'production' : config.WEBHOOK_ALLOW_PRIVATE_URLS === 'true';
}

/** Settings only the local launcher (`npm start`) reads: where the embedded servers live. */
export const launcherEnvSchema = z.object({
  DATA_DIR: z.string().min(1).default('.data'),
  TOOLS_DIR: z.string().min(1).default('.tools'),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  FERRETDB_PORT: port.default(27017),
  /** The launcher's liveness checks on its children; defaults in src/local/liveness.ts. */
  LIVENESS_INTERVAL_MS: milliseconds(600_000).optional(),
  LIVENESS_TIMEOUT_MS: milliseconds(600_000).optional(),
  LIVENESS_FAILURES: z.coerce.number({ error: 'expected a count' }).int('expected a whole number').min(1, 'expected 1 or more').optional(),
  /** The pause before a dead child's first restart, and the most it grows to; defaults in src/local/supervisor.ts. */
  RESTART_BACKOFF_MS: milliseconds(600_000).optional(),
  RESTART_MAX_BACKOFF_MS: milliseconds(3_600_000).optional(),
});

export type LauncherConfig = z.infer<typeof launcherEnvSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** An empty value counts as unset, as compose files and shells often pass `VAR=`. */
function presentOnly(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

/** Settings whose value a start-up error must not print: keys, tokens, passwords, PEM text (it may be a private key). */
const SECRET_SETTING = /(KEY|TOKEN|SECRET|PASSWORD|_DATA)$/;

export function parseEnv<S extends z.ZodObject>(schema: S, env: Env): z.infer<S> {
  const present = presentOnly(env);
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? '(environment)');
    const got = SECRET_SETTING.test(name) ? undefined : present[name];
    return `${name}: ${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got)})`}`;
  });
  throw new ConfigError(problems);
}

export function loadConfig(env: Env = process.env): Config {
  const config = parseEnv(serviceEnvSchema, env);
  return {
    ...config,
    MEDIA_RECORDINGS_DIR: config.MEDIA_RECORDINGS_DIR ?? defaultRecordingsDir(env),
    TRAIL_RETENTION_DAYS: config.TRAIL_RETENTION_DAYS ?? Math.min(DEFAULT_TRAIL_RETENTION_DAYS, config.TRANSCRIPT_RETENTION_DAYS),
  };
}

/** `recordings` in the launcher's DATA_DIR, resolved as the launcher resolves it (src/main/start.ts). */
function defaultRecordingsDir(env: Env): string {
  return join(fromRoot(parseEnv(launcherEnvSchema.pick({ DATA_DIR: true }), env).DATA_DIR), 'recordings');
}

/** The settings only the API process needs, checked at its start. */
export function requireApiSettings(config: Config): Config & { CONSOLE_TOKEN: string } {
  if (!config.CONSOLE_TOKEN) throw new ConfigError(['CONSOLE_TOKEN: required by the API (the console admin token)']);
  return config as Config & { CONSOLE_TOKEN: string };
}

export function loadLauncherConfig(env: Env = process.env): LauncherConfig {
  return parseEnv(launcherEnvSchema, env);
}

/** The variables the service reads, for checks that deployment files stay in step. */
export const serviceEnvNames = Object.keys(serviceEnvSchema.shape) as (keyof Config)[];
