import { repeatedFlag, switchOn, type Flags } from './cliFlags';
import { UsageError } from './usageError';

/**
 * The console CLI's `call …` and `sim call …` commands (docs/console.md, "Calls and the call
 * simulator"), planned as one console API call each. A callee script is built from named
 * flags (or `--json-script`, which the flags then override) rather than by the shared
 * bodyFromFlags, so each flag maps to exactly one script key and a mistyped flag is a usage
 * error, not a silently ignored field.
 */

export interface CallCommand {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** How a person sees the answer, when aligned key/value lines are not enough. */
  format?: (body: Record<string, unknown>) => string;
  /** What a 204 (no body) stands for, shown in its place. */
  noContent?: Record<string, unknown>;
}

export const CALL_USAGE = `  call list <workspace_id> [--status <status>] [--outcome <outcome>] [--to <number>] [--campaign-id cmp_…]
            [--limit 25] [--cursor …]                 recent calls, newest first
  call show <workspace_id> <call_id>                 the call with its transcript
  call reread <workspace_id> <call_id>               read a finished call again
  call inbound <workspace_id> --from +<digits> [--to-number +<digits>]
  sim call list <workspace_id>
  sim call set <workspace_id> <destination> [--json-script '{…}'] [--no-answer] [--ring <s>]
               [--network-outcome no_answer|busy|rejected|invalid_number|unreachable|congestion]
               [--originate-error] [--silent] [--talk <s>] [--end agent_hangup|caller_hangup|idle|setup_error|never]
               [--handoff-after <s>] [--seconds-per-turn <s>] [--turn '<user|model|human>: <text>' …]
               [--answer <key>=<text> …] [--reader-fail-times <n>] [--reader-permanent]
  sim call clear <workspace_id> <destination>`;

type Need = (value: string | undefined, what: string) => string;

const SCRIPT_FLAGS = new Set([
  'json-script',
  'no-answer',
  'ring',
  'network-outcome',
  'originate-error',
  'silent',
  'talk',
  'end',
  'handoff-after',
  'seconds-per-turn',
  'turn',
  'answer',
  'reader-fail-times',
  'reader-permanent',
  'json',
]);

function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return value === undefined || value === true ? undefined : String(value);
}

function seconds(flags: Flags, name: string): number | undefined {
  const raw = text(flags, name);
  if (raw === undefined) {
    if (flags[name] === true) throw new UsageError(`--${name} takes a number`);
    return undefined;
  }
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} takes a number, not ${JSON.stringify(raw)}`);
  return value;
}

/** The script a `sim call set` sends: `--json-script` first, each flag over it. */
export function calleeScriptFromFlags(flags: Flags, argv: string[] = []): Record<string, unknown> {
  const unknown = Object.keys(flags).filter((flag) => !SCRIPT_FLAGS.has(flag));
  if (unknown.length > 0) throw new UsageError(`unknown flag for sim call set: ${unknown.map((f) => `--${f}`).join(', ')}`);

  let script: Record<string, unknown> = {};
  const raw = text(flags, 'json-script');
  if (raw !== undefined) {
    try {
      script = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new UsageError('--json-script takes a JSON object');
    }
    if (script === null || typeof script !== 'object' || Array.isArray(script)) throw new UsageError('--json-script takes a JSON object');
  }
  const set = (key: string, value: unknown) => {
    if (value !== undefined) script[key] = value;
  };
  const noAnswer = switchOn(flags, 'no-answer');
  set('answer', noAnswer === undefined ? undefined : !noAnswer);
  set('ring_seconds', seconds(flags, 'ring'));
  set('network_outcome', text(flags, 'network-outcome'));
  set('originate_error', switchOn(flags, 'originate-error'));
  set('silent', switchOn(flags, 'silent'));
  set('talk_seconds', seconds(flags, 'talk'));
  set('end', text(flags, 'end'));
  const handoff = seconds(flags, 'handoff-after');
  set('handoff', handoff === undefined ? undefined : { after_seconds: handoff });
  set('seconds_per_turn', seconds(flags, 'seconds-per-turn'));

  const turns = argv.length > 0 ? repeatedFlag(argv, 'turn') : [text(flags, 'turn')].filter((t): t is string => t !== undefined);
  if (turns.length > 0) {
    script.turns = turns.map((turn) => {
      const match = /^\s*(user|model|human)\s*:\s*(.*)$/s.exec(turn);
      if (!match) throw new UsageError(`--turn takes '<user|model|human>: <text>', not ${JSON.stringify(turn)}`);
      return { role: match[1], text: match[2] };
    });
  }
  const answers = argv.length > 0 ? repeatedFlag(argv, 'answer') : [text(flags, 'answer')].filter((a): a is string => a !== undefined);
  if (answers.length > 0) {
    const given = { ...((script.answers as Record<string, unknown> | undefined) ?? {}) };
    for (const pair of answers) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new UsageError(`--answer takes <key>=<text>, not ${JSON.stringify(pair)}`);
      given[pair.slice(0, at).trim()] = pair.slice(at + 1);
    }
    script.answers = given;
  }
  const failTimes = seconds(flags, 'reader-fail-times');
  const permanent = switchOn(flags, 'reader-permanent');
  if (failTimes !== undefined || permanent !== undefined) {
    const reader = { ...((script.reader as Record<string, unknown> | undefined) ?? {}) };
    if (failTimes !== undefined) reader.fail_times = failTimes;
    if (permanent !== undefined) reader.permanent = permanent;
    script.reader = reader;
  }
  return script;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as string | number | boolean | bigint | symbol);
}

/** Aligned `key  value` lines; nested objects by dotted keys, lists of objects as JSON. */
function lines(record: Record<string, unknown>, prefix = ''): [string, string][] {
  return Object.entries(record).flatMap(([key, value]) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return lines(value as Record<string, unknown>, `${prefix}${key}.`);
    if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return [[`${prefix}${key}`, value.join(',') || '-'] as [string, string]];
    return [[`${prefix}${key}`, cell(value)] as [string, string]];
  });
}

function aligned(pairs: [string, string][]): string {
  const width = Math.max(0, ...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${v}`.trimEnd()).join('\n');
}

interface Turn {
  role: string;
  text: string;
  at_seconds: number;
}

interface CaptureFieldView {
  key: string;
  type: string;
  required: boolean;
  options: string[];
}

/** A call for a person: its fields, the capture's fields on one line each, then the transcript. */
export function formatCallForPerson(body: Record<string, unknown>): string {
  const { transcript, capture, ...rest } = body as Record<string, unknown> & { transcript?: Turn[]; capture?: { goal?: string | null; fields: CaptureFieldView[]; success?: unknown } | null };
  const pairs = lines(rest);
  if (capture) {
    pairs.push(['capture.goal', cell(capture.goal)]);
    for (const field of capture.fields) {
      const options = field.options.length ? `: ${field.options.join('|')}` : '';
      pairs.push([`capture.${field.key}`, `${field.type}${options}${field.required ? ', required' : ''}`]);
    }
    if (capture.success) pairs.push(['capture.success', cell(capture.success)]);
  } else {
    pairs.push(['capture', '-']);
  }
  const out = [aligned(pairs), '', 'transcript:'];
  if (!transcript || transcript.length === 0) out.push('  (none)');
  for (const turn of transcript ?? []) out.push(`  ${`${turn.at_seconds.toFixed(1)}s`.padStart(7)}  ${turn.role.padEnd(5)}  ${turn.text}`);
  return out.join('\n');
}

const SCRIPT_COLUMNS = ['answer', 'ring_seconds', 'network_outcome', 'originate_error', 'silent', 'talk_seconds', 'end', 'handoff', 'seconds_per_turn', 'reader'] as const;

/** The scripted destinations, one row each; turns and answers are counted, not printed. */
export function formatScriptsForPerson(body: Record<string, unknown>): string {
  const items = (body.items ?? []) as { destination: string; script: Record<string, unknown> }[];
  if (items.length === 0) return '(none)';
  const columns = ['destination', ...SCRIPT_COLUMNS, 'turns', 'answers'];
  const rows = items.map(({ destination, script }) => [
    destination,
    ...SCRIPT_COLUMNS.map((key) => {
      const value = script[key];
      if (key === 'handoff') return value ? `after ${(value as { after_seconds: number }).after_seconds}s` : '-';
      if (key === 'reader') {
        const reader = value as { fail_times: number; permanent: boolean } | undefined;
        return reader ? (reader.permanent ? 'permanent' : reader.fail_times ? `fail ${reader.fail_times}` : 'ok') : '-';
      }
      return cell(value);
    }),
    Array.isArray(script.turns) ? String(script.turns.length) : '-',
    String(Object.keys((script.answers as object | undefined) ?? {}).length || '-'),
  ]);
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), ...rows.map(line)].join('\n');
}

const LIST_FLAGS = ['status', 'outcome', 'to', 'campaign-id', 'limit', 'cursor'];
const LIST_COLUMNS = ['call_id', 'created_at', 'to', 'status', 'outcome', 'result', 'campaign'] as const;

/** Recent calls one a line (the result's state, the campaign's name), then how to ask for the next page. */
export function formatCallListForPerson(body: Record<string, unknown>): string {
  const items = (body.items ?? []) as Record<string, unknown>[];
  if (items.length === 0) return '(none)';
  const rows = items.map((call) =>
    LIST_COLUMNS.map((column) => {
      if (column === 'result') return cell((call.result as { state?: string } | undefined)?.state);
      if (column === 'campaign') return call.campaign_id ? `${cell(call.campaign_name)} (${cell(call.campaign_id)})` : '-';
      return cell(call[column]);
    }),
  );
  const widths = LIST_COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(LIST_COLUMNS), ...rows.map(line)];
  if (typeof body.next_cursor === 'string') out.push('', `more: add --cursor ${body.next_cursor}`);
  return out.join('\n');
}

/** The call for a `call …` or `sim call …` command, or null when the command is not one of these. */
export function planCallCommand(positionals: string[], flags: Flags, need: Need, argv: string[] = []): CallCommand | null {
  const [resource, action] = positionals;
  if (resource === 'call') {
    const [, , workspace, callId] = positionals;
    const ws = () => `/workspaces/${encodeURIComponent(need(workspace, '<workspace_id>'))}`;
    const one = () => `${ws()}/calls/${encodeURIComponent(need(callId, '<call_id>'))}`;
    switch (action) {
      case 'list': {
        const unknown = Object.keys(flags).filter((f) => f !== 'json' && !LIST_FLAGS.includes(f));
        if (unknown.length > 0) throw new UsageError(`unknown flag for call list: ${unknown.map((f) => `--${f}`).join(', ')}`);
        const query = new URLSearchParams();
        for (const flag of LIST_FLAGS) {
          const value = text(flags, flag);
          if (value !== undefined) query.set(flag.replace(/-/g, '_'), value);
        }
        const qs = query.toString();
        return { method: 'GET', path: `${ws()}/calls${qs ? `?${qs}` : ''}`, format: formatCallListForPerson };
      }
      case 'show':
        return { method: 'GET', path: one(), format: formatCallForPerson };
      case 'reread':
        return { method: 'POST', path: `${one()}/reread`, body: {} };
      case 'inbound': {
        const toNumber = text(flags, 'to-number');
        return { method: 'POST', path: `${ws()}/calls/inbound`, body: { from: need(text(flags, 'from'), '--from'), to_number: toNumber ?? null } };
      }
      default:
        return null;
    }
  }
  if (resource === 'sim' && action === 'call') {
    const [, , verb, workspace, destination] = positionals;
    const scripts = () => `/workspaces/${encodeURIComponent(need(workspace, '<workspace_id>'))}/simulator/calls`;
    const one = () => `${scripts()}/${encodeURIComponent(need(destination, '<destination>'))}`;
    switch (verb) {
      case 'list':
        return { method: 'GET', path: scripts(), format: formatScriptsForPerson };
      case 'set':
        return { method: 'PUT', path: one(), body: calleeScriptFromFlags(flags, argv) };
      case 'clear':
        return { method: 'DELETE', path: one(), noContent: { destination: need(destination, '<destination>'), cleared: true } };
      default:
        return null;
    }
  }
  return null;
}
