import { formatCampaignForPerson } from './campaignWatch';
import { repeatedFlag, switchOn, type Flags } from './cliFlags';
import { UsageError } from './usageError';

/**
 * The console CLI's `campaigns …` commands (docs/console.md, "Campaigns"), planned as one
 * console API call each; `campaigns watch` is a loop of reads (campaignWatch.ts). Flags are
 * read here by name, so a mistyped one is a usage error, not a field the API refuses.
 */

export interface CampaignCommand {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: Record<string, unknown>;
  columns?: string[];
  /** How a person sees the answer, when aligned key/value lines (`human`) are not enough. */
  format?: (body: Record<string, unknown>, human: (record: Record<string, unknown>) => string) => string;
}

export const CAMPAIGN_USAGE = `  campaigns create <workspace_id> --name <name> (--contact-ids cnt_…,cnt_… | --tags vip,mumbai)
                   WhatsApp: --template <name> [--language en] [--variable '{{contact.name}}' …] [--sender-id snd_…]
                   calls:    --channel voice --agent-id bot_… [--purpose <text>] [--script <text>]
                             [--capture '<json>'] [--call-back-incomplete] [--recipient-time-zone]
                   [--start-at <ISO time>] [--timezone <zone>] [--throttle-per-minute <1-600>]
                   [--send-window-start-hour <h>] [--send-window-end-hour <h>]
                   [--consent-basis existing_customer|explicit_opt_in|inbound_enquiry|service_message] [--consent-note <text>]
                   a draft that messages nobody; evaluate, then launch it
  campaigns list <workspace_id> [--status <status>] [--include-archived] [--limit 25] [--cursor …]
  campaigns show <workspace_id> <campaign_id>                  what its run is doing and why, live counters
  campaigns evaluate <workspace_id> <campaign_id>
  campaigns launch <workspace_id> <campaign_id> --expected-version <n> [--confirm-recipients <n>]
  campaigns pause|resume|cancel <workspace_id> <campaign_id> --expected-version <n>
  campaigns archive <workspace_id> <campaign_id>               a completed, failed or cancelled one
  campaigns recipients <workspace_id> <campaign_id> [--limit 50] [--cursor …]
  campaigns timeline <workspace_id> <campaign_id>              counters per minute
  campaigns settings <workspace_id> [--throttle-per-minute <1-600>] [--send-window-start-hour <9-20>]
                     [--send-window-end-hour <10-21>] [--timezone <zone>|none] [--max-recipients-per-campaign <n>]
  campaigns watch <workspace_id> <campaign_id> [--interval <s>]  progress bar and finish estimate until it ends`;

type Need = (value: string | undefined, what: string) => string;

const LIST_COLUMNS = ['campaign_id', 'name', 'status', 'version', 'recipients', 'sent', 'delivered', 'read', 'failed', 'skipped', 'updated_at'];
const SETTINGS_FLAGS = ['throttle-per-minute', 'send-window-start-hour', 'send-window-end-hour', 'timezone', 'max-recipients-per-campaign'] as const;
const CREATE_FLAGS = [
  'name',
  'channel',
  'contact-ids',
  'tags',
  'template',
  'language',
  'variable',
  'sender-id',
  'agent-id',
  'purpose',
  'script',
  'capture',
  'call-back-incomplete',
  'recipient-time-zone',
  'start-at',
  'timezone',
  'throttle-per-minute',
  'send-window-start-hour',
  'send-window-end-hour',
  'consent-basis',
  'consent-note',
] as const;
const ALLOWED: Record<string, readonly string[]> = {
  create: CREATE_FLAGS,
  list: ['status', 'include-archived', 'limit', 'cursor'],
  launch: ['expected-version', 'confirm-recipients'],
  pause: ['expected-version'],
  resume: ['expected-version'],
  cancel: ['expected-version'],
  recipients: ['limit', 'cursor'],
  settings: SETTINGS_FLAGS,
  watch: ['interval'],
};

function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === true) throw new UsageError(`--${name} takes a value`);
  return value === undefined ? undefined : String(value);
}

function integer(flags: Flags, name: string): number | undefined {
  const raw = text(flags, name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`--${name} takes a whole number, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

const list = (flags: Flags, name: string) => text(flags, name)?.split(',').map((s) => s.trim()).filter(Boolean);

/** Every value of a flag that may repeat (`--variable a --variable b`), in order, from the raw arguments. */
function repeated(argv: string[], flags: Flags, name: string): string[] {
  if (argv.length === 0) return [text(flags, name)].filter((v): v is string => v !== undefined);
  return repeatedFlag(argv, name);
}

/**
 * The body of `campaigns create`: the public create request (POST /api/v1/campaigns) from
 * named flags. Only what was given is sent, so the server's defaults and rules decide the
 * rest; what the server would refuse (a WhatsApp campaign with --script) is left to it, so
 * the CLI shows the same refusal the console and the API give.
 */
export function createCampaignBodyFromFlags(flags: Flags, argv: string[] = []): Record<string, unknown> {
  const name = text(flags, 'name');
  if (name === undefined) throw new UsageError('campaigns create needs --name');
  const contactIds = list(flags, 'contact-ids');
  const tags = list(flags, 'tags');
  if ((contactIds === undefined) === (tags === undefined)) {
    throw new UsageError('campaigns create needs its audience: --contact-ids cnt_…,cnt_… (those contacts) or --tags a,b (every contact with all of them)');
  }
  const body: Record<string, unknown> = {
    name,
    audience: tags !== undefined ? { kind: 'segment', tags } : { kind: 'contact_ids', contact_ids: contactIds },
  };
  const put = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value;
  };
  put('channel', text(flags, 'channel'));
  const template = text(flags, 'template');
  const variables = repeated(argv, flags, 'variable');
  const language = text(flags, 'language');
  if (template !== undefined) body.template = { name: template, ...(language !== undefined ? { language } : {}), variables };
  else if (variables.length > 0 || language !== undefined) throw new UsageError('--variable and --language belong to a --template');
  put('sender_id', text(flags, 'sender-id'));
  put('agent_id', text(flags, 'agent-id'));
  put('purpose', text(flags, 'purpose'));
  put('script', text(flags, 'script'));
  const capture = text(flags, 'capture');
  if (capture !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(capture);
    } catch {
      throw new UsageError(`--capture takes a JSON object such as '{"goal":"…","fields":[{"label":"Address correct?","type":"yes_no","required":true}]}'`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('--capture takes a JSON object');
    body.capture = parsed;
  }
  put('call_back_incomplete', switchOn(flags, 'call-back-incomplete'));
  const schedule: Record<string, unknown> = {};
  const plan = (key: string, value: unknown) => {
    if (value !== undefined) schedule[key] = value;
  };
  plan('start_at', text(flags, 'start-at'));
  plan('timezone', text(flags, 'timezone'));
  plan('throttle_per_minute', integer(flags, 'throttle-per-minute'));
  plan('send_window_start_hour', integer(flags, 'send-window-start-hour'));
  plan('send_window_end_hour', integer(flags, 'send-window-end-hour'));
  plan('recipient_time_zone', switchOn(flags, 'recipient-time-zone'));
  if (Object.keys(schedule).length > 0) body.schedule = schedule;
  const basis = text(flags, 'consent-basis');
  const note = text(flags, 'consent-note');
  if (basis !== undefined) body.consent = { basis, ...(note !== undefined ? { note } : {}) };
  else if (note !== undefined) throw new UsageError('--consent-note belongs to a --consent-basis');
  return body;
}

function query(pairs: [string, string | undefined][]): string {
  const qs = new URLSearchParams(pairs.filter((p): p is [string, string] => p[1] !== undefined)).toString();
  return qs ? `?${qs}` : '';
}

/** The call for a campaign command, or null when the command is not one of these (`watch` included: it is a loop). */
export function planCampaignCommand(positionals: string[], flags: Flags, need: Need, argv: string[] = []): CampaignCommand | null {
  const [resource, action, workspace, campaign] = positionals;
  if (resource !== 'campaigns' || action === undefined || action === 'watch') return null;
  const allowed = ALLOWED[action] ?? [];
  const unknown = Object.keys(flags).filter((f) => f !== 'json' && !allowed.includes(f));
  if (unknown.length > 0) throw new UsageError(`unknown flag for campaigns ${action}: ${unknown.map((f) => `--${f}`).join(', ')}`);
  const ws = () => `/workspaces/${encodeURIComponent(need(workspace, '<workspace_id>'))}`;
  const one = () => `${ws()}/campaigns/${encodeURIComponent(need(campaign, '<campaign_id>'))}`;
  const version = () => {
    const v = integer(flags, 'expected-version');
    if (v === undefined) throw new UsageError(`campaigns ${action} needs --expected-version (the version shown by campaigns show)`);
    return v;
  };
  switch (action) {
    case 'create':
      return { method: 'POST', path: `${ws()}/campaigns`, body: createCampaignBodyFromFlags(flags, argv), format: formatCampaignForPerson };
    case 'list': {
      const archived = flags['include-archived'];
      return {
        method: 'GET',
        path: `${ws()}/campaigns${query([
          ['status', text(flags, 'status')],
          ['include_archived', archived === undefined ? undefined : archived === true || archived === 'true' ? 'true' : 'false'],
          ['limit', text(flags, 'limit')],
          ['cursor', text(flags, 'cursor')],
        ])}`,
        columns: LIST_COLUMNS,
      };
    }
    case 'show':
      return { method: 'GET', path: one(), format: formatCampaignForPerson };
    case 'evaluate':
      return { method: 'POST', path: `${one()}/evaluate`, format: formatEvaluationForPerson };
    case 'launch': {
      const confirm = integer(flags, 'confirm-recipients');
      return { method: 'POST', path: `${one()}/launch`, body: { expected_version: version(), ...(confirm === undefined ? {} : { confirm_recipients: confirm }) } };
    }
    case 'pause':
    case 'resume':
    case 'cancel':
      return { method: 'POST', path: `${one()}/${action}`, body: { expected_version: version() } };
    case 'archive':
      return { method: 'POST', path: `${one()}/archive` };
    case 'recipients':
      return {
        method: 'GET',
        path: `${one()}/recipients${query([['limit', text(flags, 'limit')], ['cursor', text(flags, 'cursor')]])}`,
        // A person of an uploaded list has no contact id: their row in the file names them instead.
        columns: ['position', 'contact_id', 'name', 'to', 'state', 'reason', 'state_at'],
        format: (body, human) =>
          human({
            ...body,
            items: ((body.items ?? []) as { contact_id: string | null; row?: number }[]).map((r) => ({ ...r, contact_id: r.contact_id ?? (r.row === undefined ? null : `row ${r.row}`) })),
          }),
      };
    case 'timeline':
      return { method: 'GET', path: `${one()}/timeline`, columns: ['at', 'queued', 'sent', 'delivered', 'read', 'failed', 'skipped'] };
    case 'settings': {
      const body: Record<string, unknown> = {};
      for (const flag of SETTINGS_FLAGS) {
        if (flags[flag] === undefined) continue;
        const key = flag.replace(/-/g, '_');
        if (flag === 'timezone') {
          const zone = text(flags, flag)!;
          body[key] = zone === 'none' ? null : zone;
        } else body[key] = integer(flags, flag);
      }
      const path = `${ws()}/campaign-settings`;
      return Object.keys(body).length === 0 ? { method: 'GET', path } : { method: 'PATCH', path, body };
    }
    default:
      return null;
  }
}

interface Evaluation {
  eligible: number;
  total_rows: number;
  excluded: Record<string, number>;
  invalid_rows: { reason: string; contact_id: string; field?: string }[];
  sample: { to: string; name: string | null; variables: Record<string, string> }[];
  findings: { code: string; severity: string; message: string; fix: string; count: number }[];
  checksum: string;
}

/** Aligned columns, `-` for an empty cell. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd());
}

/**
 * An evaluate answer for a person: the counts, then each sample recipient, invalid row and
 * finding on a line of its own (the record's lists hold objects, which key/value lines cannot show).
 */
export function formatEvaluationForPerson(body: Record<string, unknown>): string {
  const e = body as unknown as Evaluation;
  const excluded = Object.entries(e.excluded ?? {}).filter(([, n]) => n > 0);
  const out = [
    `eligible  ${e.eligible} of ${e.total_rows}`,
    `excluded  ${excluded.length === 0 ? '-' : excluded.map(([reason, n]) => `${reason} ${n}`).join(', ')}`,
    `checksum  ${e.checksum}`,
  ];
  const sample = e.sample ?? [];
  out.push('', `sample (${sample.length})`);
  if (sample.length > 0) {
    out.push(
      ...table(
        sample.map((s) => {
          const variables = Object.entries(s.variables ?? {}).map(([k, v]) => `${k}=${v}`);
          return [s.to, s.name ?? '-', variables.join(' ') || '-'];
        }),
      ),
    );
  }
  const invalid = e.invalid_rows ?? [];
  if (invalid.length > 0) {
    out.push('', `invalid rows (${invalid.length})`, ...table(invalid.map((r) => [r.contact_id, r.reason, r.field ?? '-'])));
  }
  const findings = e.findings ?? [];
  out.push('', `findings (${findings.length})`);
  for (const f of findings) out.push(`  ${f.severity}  ${f.code} (${f.count}): ${f.message}`, `    fix: ${f.fix}`);
  return out.join('\n');
}
