import { timesInZone, withZoneNote, WORKSPACE_ZONE_HEADER } from './cliClock';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, parseEnv, serviceEnvSchema } from '../config';
import { fromRoot } from '../local/paths';
import { AGENT_USAGE, planAgentCommand } from './agentCommands';
import { WEBHOOK_USAGE, planWebhookCall } from './webhookCommands';
import { CALL_USAGE, planCallCommand } from './callCommands';
import { CAMPAIGN_USAGE, planCampaignCommand } from './campaignCommands';
import { watchCampaign, type WatchedCampaign } from './campaignWatch';
import { DUES_USAGE, planDuesCommand } from './duesCommands';
import { KNOWLEDGE_USAGE, planKnowledgeCommand } from './knowledgeCommands';
import { LIST_USAGE, planListCommand } from './listCommands';
import { UsageError } from './usageError';
import { apiErrorText, usageErrorText, usageOf } from './errorText';

/**
 * `npm run console -- <resource> <action> [ids] [--flags] [--json]`: the console API for a
 * person (aligned text) or a script (`--json`, the API's JSON as it is). See docs/console.md.
 */

const USAGE = `usage: npm run console -- <resource> <action> [ids] [--flags] [--json]

  workspaces list
  workspaces show <workspace_id>
  workspaces create --name <name> [--country IN] [--timezone <zone>] [--demo]
  workspaces update <workspace_id> [--name …] [--country …] [--timezone …] [--suspended true|false]
                    [--plan.<field> <value>] [--capabilities.<field> true|false]
                    [--calling-country-codes 91,971] [--installed-apps dues]
  keys list <workspace_id>
  keys create <workspace_id> --name <name> --scopes <scope,scope> [--environment live|test]
  keys roll <workspace_id> <key_id>
  keys revoke <workspace_id> <key_id>
${AGENT_USAGE}
  numbers list <workspace_id>
  numbers add <workspace_id> --number +<digits> [--agent-id bot_…] [--recording true] [--team-line +<digits>]
  numbers update <workspace_id> <number> [--agent-id bot_…|none] [--active true|false] [--recording true|false]
                 [--team-line +<digits>|none]
  senders list <workspace_id>
  senders add <workspace_id> --phone +<digits> --display-name <name> [--is-default true]
  senders update <workspace_id> <sender_id> [--display-name …] [--is-default true] [--connected true|false]
                 [--agent-id bot_…|none]
  senders deploy <workspace_id> <sender_id> --agent-id bot_…   (the chat agent answers the sender's customers)
  senders undeploy <workspace_id> <sender_id>
  templates list <workspace_id>
  templates add <workspace_id> --name <name> --language <code> --body <text> [--status approved|pending|rejected]
  templates update <workspace_id> <template_id> --status approved|pending|rejected
  tickets list <workspace_id>
  tickets show <workspace_id> <ticket_id>
  tickets settings <workspace_id>
  tickets configure <workspace_id> [--auto-assign true|false] [--assignment round_robin|first]
                    [--assignees <id>:<name>,<id>:<name>]
  tickets assignees <workspace_id>
  tickets escalate <workspace_id> <ticket_id> [--reason <text>]
  tickets deescalate <workspace_id> <ticket_id>
  tickets assign <workspace_id> <ticket_id> --assignee-id <id>|none
  whatsapp-sim list <workspace_id>
  whatsapp-sim set <workspace_id> <recipient> [--outcome read|delivered|sent|failed]
                   [--fail-next <n> --fail-kind rate_limit|server] [--refuse.code <code> --refuse.message <text>]
                   [--delays-ms.sent <ms>] [--delays-ms.delivered <ms>] [--delays-ms.read <ms>] [--delays-ms.failed <ms>]
  whatsapp-sim clear <workspace_id> <recipient>
  whatsapp inbound <workspace_id> --from +<digits> --text <text> [--name …] [--sender-id snd_…]
                   [--referral.source-type ad --referral.source-id … --referral.source-url … --referral.ctwa-clid …]
  whatsapp echo <workspace_id> --to +<digits> [--text <text>] [--action sent|edited|deleted]
  conversations add-turn <workspace_id> <conversation_id> --role user|model|human --text <text>
                   [--kind turn|trail] [--agent-id bot_…] [--turn-id <id>]
  inbox list <workspace_id> [--filter waiting|held|all]   (conversations a chat agent handed to a person)
  inbox take <workspace_id> <conversation_id> --member-name <name> [--reason <text>]
  inbox reply <workspace_id> <conversation_id> --member-name <name> --text <text>
  inbox hand-back <workspace_id> <conversation_id> --member-name <name>

${WEBHOOK_USAGE}
${CALL_USAGE}
${CAMPAIGN_USAGE}
${LIST_USAGE}
${DUES_USAGE}
${KNOWLEDGE_USAGE}

Connects to CONSOLE_URL (default http://127.0.0.1:$PORT, PORT 3000) with CONSOLE_TOKEN
(default: the token npm start keeps in $DATA_DIR/console-token).`;

const LIST_FIELDS = new Set(['scopes', 'calling_country_codes', 'installed_apps']);
const TEXT_FIELDS = new Set([
  ...['name', 'display_name', 'body', 'language', 'timezone', 'country', 'number', 'phone', 'agent_id', 'team_line'],
  // WhatsApp console fields that stay strings even when they look like numbers.
  ...['text', 'from', 'to', 'message', 'user_message', 'sender_id', 'message_id', 'source_id', 'headline', 'ctwa_clid', 'turn_id'],
  // The inbox's: a team member's name and the reason they give stay as written.
  ...['member_name', 'reason', 'filter'],
]);

/** `--plan.prepaid-credits 0` becomes `{ plan: { prepaid_credits: 0 } }`. */
export function bodyFromFlags(flags: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [flag, raw] of Object.entries(flags)) {
    if (flag === 'json' || raw === undefined) continue;
    const path = flag.split('.').map((part) => part.replace(/-/g, '_'));
    const field = path[path.length - 1]!;
    let value: unknown = raw;
    if (typeof raw === 'string') {
      if (LIST_FIELDS.has(field)) value = raw.split(',').map((s) => s.trim()).filter(Boolean);
      else if ((field === 'agent_id' || field === 'team_line') && raw === 'none') value = null;
      else if (TEXT_FIELDS.has(field)) value = raw;
      else if (raw === 'true' || raw === 'false') value = raw === 'true';
      else if (/^-?\d+(\.\d+)?$/.test(raw)) value = Number(raw);
    }
    let target = body;
    for (const part of path.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
    target[field] = value;
  }
  return body;
}

interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  columns?: string[];
  /** How a person sees the answer, when aligned lines or columns (`human`) are not enough. */
  format?: (body: Record<string, unknown>, human: (record: Record<string, unknown>) => string) => string;
  /** What a 204 (no body) stands for, shown in its place. */
  noContent?: Record<string, unknown>;
  /** A file sent as the body, as it is on disk (`lists upload`). */
  file?: { path: string; contentType: string };
}

/** `u1:Asha,u2:Ravi Kumar` becomes `[{id: 'u1', name: 'Asha'}, …]`; an empty value clears the list. */
function parseAssignees(raw: unknown): { id: string; name: string }[] {
  return String(raw === true ? '' : raw)
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':');
      if (at <= 0) throw new UsageError(`--assignees takes <id>:<name> pairs separated by commas, not ${JSON.stringify(pair)}`);
      return { id: pair.slice(0, at).trim(), name: pair.slice(at + 1).trim() };
    });
}

function need(id: string | undefined, what: string): string {
  if (!id) throw new UsageError(`missing ${what}`);
  return id;
}

/** The workspace's records kept with `<resource> list|add|update`: the id an update names, and the columns of the list. */
const WORKSPACE_RECORDS: Record<string, { id: string; columns: string[] }> = {
  numbers: { id: '<number>', columns: ['number', 'agent_id', 'active', 'recording', 'team_line'] },
  senders: { id: '<sender_id>', columns: ['sender_id', 'phone', 'display_name', 'is_default', 'connected', 'agent_id'] },
  templates: { id: '<template_id>', columns: ['template_id', 'name', 'language', 'status'] },
};

/** `argv`, when given, lets a command read a flag given more than once (`--answer a=1 --answer b=2`). */
export function planCall(positionals: string[], flags: Record<string, string | boolean | undefined>, argv: string[] = []): Call {
  const [resource, action, first, second] = positionals;
  const body = bodyFromFlags(flags);
  const ws = () => `/workspaces/${encodeURIComponent(need(first, '<workspace_id>'))}`;
  const item = (what: string) => encodeURIComponent(need(second, what));
  const records = resource !== undefined && Object.hasOwn(WORKSPACE_RECORDS, resource) ? WORKSPACE_RECORDS[resource] : undefined;
  if (records && action === 'list') return { method: 'GET', path: `${ws()}/${resource}`, columns: records.columns };
  if (records && action === 'add') return { method: 'POST', path: `${ws()}/${resource}`, body };
  if (records && action === 'update') return { method: 'PATCH', path: `${ws()}/${resource}/${item(records.id)}`, body };
  switch (`${resource} ${action}`) {
    case 'workspaces list':
      return { method: 'GET', path: '/workspaces', columns: ['workspace_id', 'name', 'country', 'suspended', 'demo'] };
    case 'workspaces show':
      return { method: 'GET', path: ws() };
    case 'workspaces create':
      return { method: 'POST', path: '/workspaces', body };
    case 'workspaces update':
      return { method: 'PATCH', path: ws(), body };
    case 'keys list':
      return { method: 'GET', path: `${ws()}/keys`, columns: ['key_id', 'name', 'display_prefix', 'environment', 'scopes', 'last_used_at', 'revoked_at', 'expires_at'] };
    case 'keys create':
      return { method: 'POST', path: `${ws()}/keys`, body: { scopes: [], ...body } };
    case 'keys roll':
      return { method: 'POST', path: `${ws()}/keys/${item('<key_id>')}/roll`, body: {} };
    case 'keys revoke':
      return { method: 'POST', path: `${ws()}/keys/${item('<key_id>')}/revoke`, body: {} };
    case 'tickets list':
      return { method: 'GET', path: `${ws()}/tickets`, columns: ['ticket_id', 'public_ref', 'status', 'priority', 'assignee_name', 'subject'] };
    case 'tickets show':
      return { method: 'GET', path: `${ws()}/tickets/${item('<ticket_id>')}` };
    case 'tickets settings':
      return { method: 'GET', path: `${ws()}/ticket-settings` };
    case 'tickets configure':
      return { method: 'PATCH', path: `${ws()}/ticket-settings`, body: { ...body, ...(body.assignees === undefined ? {} : { assignees: parseAssignees(body.assignees) }) } };
    case 'tickets assignees':
      return { method: 'GET', path: `${ws()}/ticket-assignees`, columns: ['assignee_id', 'name'] };
    case 'tickets escalate':
      return { method: 'POST', path: `${ws()}/tickets/${item('<ticket_id>')}/escalation`, body: { open: true, reason: body.reason === undefined ? null : String(body.reason as string | number | boolean) } };
    case 'tickets deescalate':
      return { method: 'POST', path: `${ws()}/tickets/${item('<ticket_id>')}/escalation`, body: { open: false } };
    case 'tickets assign': {
      const assignee = need(body.assignee_id === undefined ? undefined : String(body.assignee_id as string | number | boolean), '--assignee-id');
      return { method: 'POST', path: `${ws()}/tickets/${item('<ticket_id>')}/assign`, body: { assignee_id: assignee === 'none' ? null : assignee } };
    }
    case 'senders deploy':
      return { method: 'PATCH', path: `${ws()}/senders/${item('<sender_id>')}`, body: { agent_id: need(typeof body.agent_id === 'string' ? body.agent_id : undefined, '--agent-id') } };
    case 'senders undeploy':
      return { method: 'PATCH', path: `${ws()}/senders/${item('<sender_id>')}`, body: { agent_id: null } };
    case 'whatsapp-sim list':
      return { method: 'GET', path: `${ws()}/simulator/whatsapp`, columns: ['recipient', 'outcome', 'fail_next', 'fail_kind', 'refuse'] };
    case 'whatsapp-sim set':
      return { method: 'PUT', path: `${ws()}/simulator/whatsapp/${item('<recipient>')}`, body };
    case 'whatsapp-sim clear':
      return { method: 'DELETE', path: `${ws()}/simulator/whatsapp/${item('<recipient>')}` };
    case 'whatsapp inbound':
      return { method: 'POST', path: `${ws()}/whatsapp/inbound`, body };
    case 'whatsapp echo':
      return { method: 'POST', path: `${ws()}/whatsapp/echo`, body };
    case 'inbox list':
      return {
        method: 'GET',
        path: `${ws()}/agent-inbox?filter=${encodeURIComponent(typeof body.filter === 'string' ? body.filter : 'waiting')}`,
        columns: ['conversation_id', 'customer_phone', 'state', 'member_name', 'reason', 'updated_at'],
      };
    case 'inbox take':
      return { method: 'POST', path: `${ws()}/conversations/${item('<conversation_id>')}/hand-over`, body };
    case 'inbox reply':
      return { method: 'POST', path: `${ws()}/conversations/${item('<conversation_id>')}/team-replies`, body };
    case 'inbox hand-back':
      return { method: 'POST', path: `${ws()}/conversations/${item('<conversation_id>')}/hand-back`, body };
    case 'conversations add-turn':
      return { method: 'POST', path: `${ws()}/conversations/${item('<conversation_id>')}/turns`, body: { text: null, ...body } };
    default: {
      const agentCommand = planAgentCommand(positionals, flags, need);
      if (agentCommand) return agentCommand;
      const webhookCall = planWebhookCall(positionals, flags, need);
      if (webhookCall) return webhookCall;
      const callCommand = planCallCommand(positionals, flags, need, argv);
      if (callCommand) return callCommand;
      const campaignCommand = planCampaignCommand(positionals, flags, need, argv);
      if (campaignCommand) return campaignCommand;
      const duesCommand = planDuesCommand(positionals, flags, need);
      if (duesCommand) return duesCommand;
      const listCommand = planListCommand(positionals, flags, need);
      if (listCommand) return listCommand;
      const knowledgeCommand = planKnowledgeCommand(positionals, flags, need);
      if (knowledgeCommand) return knowledgeCommand;
      throw new UsageError(resource ? `unknown command: ${positionals.slice(0, 2).join(' ')}` : 'no command given');
    }
  }
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  // An object inside a list is shown as JSON: joining it would print "[object Object]".
  if (Array.isArray(value)) return value.map((v: unknown) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v))).join(',') || '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as string | number | boolean | bigint | symbol);
}

function flatten(value: Record<string, unknown>, prefix = ''): [string, string][] {
  return Object.entries(value).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(prefix === '' && k === 'previous')
      ? flatten(v as Record<string, unknown>, `${prefix}${k}.`)
      : [[`${prefix}${k}`, cell(v)] as [string, string]],
  );
}

/** A column's value; `voice.language` reads inside an object. */
function column(item: Record<string, unknown>, name: string): unknown {
  return name.split('.').reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), item);
}

/** Aligned columns for a list, aligned `key: value` lines for one record. */
export function formatHuman(body: unknown, columns?: string[]): string {
  const record = body as Record<string, unknown>;
  if (columns && Array.isArray(record.items)) {
    const rows = (record.items as Record<string, unknown>[]).map((item) => columns.map((c) => cell(column(item, c))));
    if (rows.length === 0) return '(none)';
    const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
    return [line(columns), ...rows.map(line)].join('\n');
  }
  const pairs = flatten(record);
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

function consoleToken(): string {
  if (process.env.CONSOLE_TOKEN) return process.env.CONSOLE_TOKEN;
  const file = join(fromRoot(process.env.DATA_DIR || '.data'), 'console-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new UsageError(`no console token: set CONSOLE_TOKEN, or start the system with npm start (it writes ${file})`);
}

/**
 * Where the console API answers: CONSOLE_URL, else the API that `npm start` runs, on PORT read
 * as the API reads it (the same default and the same check).
 */
export function consoleBaseUrl(env: Record<string, string | undefined> = process.env): string {
  const given = env.CONSOLE_URL;
  if (given) {
    if (!URL.canParse(given) || !/^https?:$/.test(new URL(given).protocol)) {
      throw new ConfigError([`CONSOLE_URL: expected an http:// or https:// URL (got ${JSON.stringify(given)})`]);
    }
    return given.replace(/\/+$/, '');
  }
  const { PORT } = parseEnv(z.object({ PORT: serviceEnvSchema.shape.PORT }), env);
  return `http://127.0.0.1:${PORT}`;
}

/** The console API could not be asked: nothing answered at the URL, or what answered is not it. Printed as one line. */
export class NotReached extends Error {}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'no such host',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
};

/** Why a fetch got no response, from the socket error fetch keeps as its cause. */
function networkReason(error: unknown): string {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return NETWORK_REASONS[code] ?? code;
  }
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
}

/** fetch, with "nothing answered" turned into a NotReached naming the URL and what to do. */
export async function reach(url: string, init: RequestInit = {}, send: typeof fetch = fetch): Promise<Response> {
  try {
    return await send(url, init);
  } catch (err) {
    throw new NotReached(
      `could not reach ${url} (${networkReason(err)}). Is the system running? Start it with npm start, or set PORT or CONSOLE_URL to where its API answers.`,
    );
  }
}

/** The JSON body of a console API answer; anything else means PORT or CONSOLE_URL points at something other than the API. */
export async function jsonOf(res: Response, url: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new NotReached(`${url} answered ${res.status} without JSON: is PORT or CONSOLE_URL pointing at the orchestrator's API?`);
  }
}

/**
 * `--flag value`, `--flag=value`, or a bare `--flag` (true). Node's parseArgs cannot take
 * values for flags it was not told about, and the flags here are open-ended (`--plan.x`).
 */
export function parseCommandLine(argv: string[]): { positionals: string[]; values: Record<string, string | boolean> } {
  const positionals: string[] = [];
  const values: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) {
      values[arg.slice(2, eq)] = arg.slice(eq + 1);
    } else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) {
      values[arg.slice(2)] = argv[++i]!;
    } else {
      values[arg.slice(2)] = true;
    }
  }
  return { positionals, values };
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv);
  if (positionals.length === 0 || values.help) {
    // `keys --help` shows the keys commands; `--help` alone, every command.
    const some = values.help ? usageOf(USAGE, positionals) : [];
    process.stdout.write(`${some.length > 0 ? ['usage: npm run console -- <resource> <action> [ids] [--flags] [--json]', '', ...some].join('\n') : USAGE}\n`);
    return positionals.length === 0 && !values.help ? 2 : 0;
  }
  const json = values.json === true;
  const base = consoleBaseUrl();
  if (positionals[0] === 'campaigns' && positionals[1] === 'watch') return watch(base, positionals, values);
  const call = planCall(positionals, values, argv);
  const url = `${base}/console/v1${call.path}`;
  const file = call.file ? readFile(call.file.path) : null;
  const res = await reach(url, {
    method: call.method,
    headers: {
      authorization: `Bearer ${consoleToken()}`,
      ...(call.file ? { 'content-type': call.file.contentType } : call.body ? { 'content-type': 'application/json' } : {}),
    },
    body: file ?? (call.body ? JSON.stringify(call.body) : undefined),
  });
  const payload = res.status === 204 ? (call.noContent ?? {}) : await jsonOf(res, url);
  if (json) {
    process.stdout.write(`${JSON.stringify(payload, null, 2)}\n`);
  } else if (!res.ok) {
    process.stderr.write(`${apiErrorText(payload.error as { code: string; message: string; details: Record<string, unknown> })}\n`);
  } else {
    // One clock: the answer's times in the workspace's zone, the zone named once under them (cliClock.ts).
    const zone = res.headers.get(WORKSPACE_ZONE_HEADER);
    const clock = zone ? timesInZone(payload, zone) : null;
    const body = (clock?.value ?? payload) as Record<string, unknown>;
    const human = (record: Record<string, unknown>) => formatHuman(record, call.columns);
    const text = call.format ? call.format(body, human) : human(body);
    process.stdout.write(`${clock ? withZoneNote(text, clock) : text}\n`);
  }
  return res.ok ? 0 : 1;
}

/** The file a command sends; one that cannot be read is a usage error naming it. */
function readFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Thrown by `campaigns watch` when the API refuses a read. */
class Refused extends Error {}

async function watch(base: string, positionals: string[], values: Record<string, string | boolean>): Promise<number> {
  const unknown = Object.keys(values).filter((f) => f !== 'interval');
  if (unknown.length > 0) throw new UsageError(`unknown flag for campaigns watch: ${unknown.map((f) => `--${f}`).join(', ')}`);
  const workspace = need(positionals[2], '<workspace_id>');
  const campaign = need(positionals[3], '<campaign_id>');
  const interval = values.interval === undefined ? 2 : Number(values.interval);
  if (!(interval >= 0.2)) throw new UsageError(`--interval takes seconds (0.2 or more), not ${JSON.stringify(values.interval)}`);
  const token = consoleToken();
  const url = `${base}/console/v1/workspaces/${encodeURIComponent(workspace)}/campaigns/${encodeURIComponent(campaign)}`;
  try {
    await watchCampaign({
      read: async () => {
        const res = await reach(url, { headers: { authorization: `Bearer ${token}` } });
        const body = await jsonOf(res, url);
        if (!res.ok) {
          throw new Refused(apiErrorText(body.error as { code: string; message: string; details: Record<string, unknown> }));
        }
        return body as WatchedCampaign;
      },
      write: (text) => process.stdout.write(text),
      tty: process.stdout.isTTY === true,
      columns: () => process.stdout.columns ?? 80,
      intervalMs: interval * 1000,
    });
    return 0;
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
}

/** Runs the command line and exits: 0 done, 1 refused or failed, 2 a usage mistake (one line, and how the command is written). */
export function runConsole(argv: string[]): void {
  main(argv).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError) process.stderr.write(`${usageErrorText(err.message, USAGE, parseCommandLine(argv).positionals)}\n`);
      else process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
