import { UsageError } from './usageError';
import type { Flags } from './cliFlags';

/**
 * The console CLI's `dues …` commands (docs/dues.md), planned as one console API call each.
 * Flags are read here: lists (`--variables name,amount`) and text stay as written.
 */

export interface DuesCall {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  columns?: string[];
}

export const DUES_USAGE = `  dues install <workspace_id>
  dues uninstall <workspace_id>
  dues settings <workspace_id>
  dues configure <workspace_id> [--reminder-offset-days 3] [--followup-interval-days 3,4] [--decline-after-days 3]
                 [--send-hour 10] [--template payment_due] [--language en] [--variables name,amount,due_date]
                 [--button-variables due_id] [--upi-id name@bank] [--qr-url <url>]
                 [--receipt true|false] [--receipt-template <name>] [--receipt-variables name,amount,period]
                 (replaces the settings: options left out take their defaults)
  dues add <workspace_id> --name <name> --phone <+digits> --amount <rupees> [--email …] [--plan-name …]
           [--cycle-unit weekly|monthly|quarterly|half_yearly|yearly|custom_days] [--cycle-days <n>]
           [--due-day <1-31>] [--start-date YYYY-MM-DD]   (the next two dues are raised at once)
  dues subscribers <workspace_id> [--status active|paused|cancelled] [--limit 50] [--cursor …]
  dues pause|resume|cancel <workspace_id> <subscriber_id>
  dues list <workspace_id> [--subscriber-id sub_…] [--status <due status>] [--limit 50] [--cursor …]
  dues waive <workspace_id> <due_id>
  dues cancel-due <workspace_id> <due_id>
  dues paid <workspace_id> <due_id> [--expected-version <n>] [--amount <rupees>] [--reference <text>] [--marked-by-name <name>]
  dues gateway-paid <workspace_id> <due_id> [--amount <rupees>] [--reference <text>]
  dues link-script <workspace_id>                         (the simulated payment-link gateway's script)
  dues script-links <workspace_id> [--create ok|fail] [--paid-after-minutes <n>]
                 (replaces the script; without --paid-after-minutes links are never paid)
  dues reset-links <workspace_id>                         (forget the script: created, never paid)`;


const text = (flags: Flags, name: string): string | undefined => {
  const value = flags[name];
  return value === undefined || value === true ? undefined : String(value);
};
const list = (flags: Flags, name: string) => text(flags, name)?.split(',').map((s) => s.trim()).filter(Boolean);
const number = (flags: Flags, name: string) => (text(flags, name) === undefined ? undefined : Number(text(flags, name)));

/** The settings a `configure` sends: only what was given; the console fills the rest with defaults. */
function settingsBody(flags: Flags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value;
  };
  put('reminder_offset_days', number(flags, 'reminder-offset-days'));
  put('followup_interval_days', list(flags, 'followup-interval-days')?.map(Number));
  put('decline_after_days', number(flags, 'decline-after-days'));
  put('send_hour', number(flags, 'send-hour'));
  const template: Record<string, unknown> = {};
  if (text(flags, 'template')) template.name = text(flags, 'template');
  if (text(flags, 'language')) template.language = text(flags, 'language');
  if (list(flags, 'variables')) template.variables = list(flags, 'variables');
  if (list(flags, 'button-variables')) template.button_variables = list(flags, 'button-variables');
  if (Object.keys(template).length) body.template = template;
  if (text(flags, 'upi-id') || text(flags, 'qr-url')) body.collection = { mode: 'manual_upi', upi_id: text(flags, 'upi-id') ?? null, qr_url: text(flags, 'qr-url') ?? null };
  const receiptTemplate: Record<string, unknown> = {};
  if (text(flags, 'receipt-template')) receiptTemplate.name = text(flags, 'receipt-template');
  if (list(flags, 'receipt-variables')) receiptTemplate.variables = list(flags, 'receipt-variables');
  if (flags.receipt !== undefined || Object.keys(receiptTemplate).length) {
    body.receipt = { enabled: flags.receipt === true || flags.receipt === 'true', ...(Object.keys(receiptTemplate).length ? { template: receiptTemplate } : {}) };
  }
  return body;
}

function query(flags: Flags, pairs: [string, string][]): string {
  const q = new URLSearchParams();
  for (const [flag, param] of pairs) {
    const value = text(flags, flag);
    if (value !== undefined) q.set(param, value);
  }
  const qs = q.toString();
  return qs ? `?${qs}` : '';
}

const ADD_FLAGS = ['name', 'phone', 'amount', 'email', 'plan-name', 'cycle-unit', 'cycle-days', 'due-day', 'start-date', 'json'];

/**
 * The body of `dues add`: the public subscriber request (POST /api/v1/apps/dues/subscribers)
 * from named flags, only what was given; the server's rules decide the rest and its refusals
 * are printed as they come. A mistyped flag is a usage error rather than a field dropped.
 */
export function subscriberBodyFromFlags(flags: Flags): Record<string, unknown> {
  const unknown = Object.keys(flags).filter((f) => !ADD_FLAGS.includes(f));
  if (unknown.length > 0) throw new UsageError(`unknown flag for dues add: ${unknown.map((f) => `--${f}`).join(', ')}`);
  const body: Record<string, unknown> = {};
  for (const flag of ['name', 'phone', 'amount']) {
    if (text(flags, flag) === undefined) throw new UsageError(`dues add needs --${flag}`);
  }
  for (const flag of ['name', 'phone', 'email', 'plan-name', 'cycle-unit', 'start-date']) {
    if (text(flags, flag) !== undefined) body[flag.replace(/-/g, '_')] = text(flags, flag);
  }
  for (const flag of ['amount', 'cycle-days', 'due-day']) {
    const raw = text(flags, flag);
    if (raw === undefined) continue;
    if (raw.trim() === '' || !Number.isFinite(Number(raw))) throw new UsageError(`--${flag} takes a number, not ${JSON.stringify(raw)}`);
    body[flag.replace(/-/g, '_')] = Number(raw);
  }
  return body;
}

/** The call for a `dues` command, or null when the command is not one. */
export function planDuesCommand(positionals: string[], flags: Flags, need: (value: string | undefined, what: string) => string): DuesCall | null {
  const [resource, action, workspace, item] = positionals;
  if (resource !== 'dues') return null;
  const ws = () => `/workspaces/${encodeURIComponent(need(workspace, '<workspace_id>'))}`;
  const app = () => `${ws()}/apps/dues`;
  const sub = () => `${app()}/subscribers/${encodeURIComponent(need(item, '<subscriber_id>'))}`;
  const due = () => `${app()}/dues/${encodeURIComponent(need(item, '<due_id>'))}`;
  const subscriberColumns = ['subscriber_id', 'name', 'phone', 'status', 'cycle_unit', 'amount', 'next_due_date', 'outstanding_total'];
  switch (action) {
    case 'install':
      return { method: 'PATCH', path: ws(), body: { installed_apps: ['dues'] } };
    case 'uninstall':
      return { method: 'PATCH', path: ws(), body: { installed_apps: [] } };
    case 'settings':
      return { method: 'GET', path: `${app()}/settings` };
    case 'configure':
      return { method: 'PUT', path: `${app()}/settings`, body: settingsBody(flags) };
    case 'add':
      return { method: 'POST', path: `${app()}/subscribers`, body: subscriberBodyFromFlags(flags) };
    case 'subscribers':
      return { method: 'GET', path: `${app()}/subscribers${query(flags, [['status', 'status'], ['limit', 'limit'], ['cursor', 'cursor']])}`, columns: subscriberColumns };
    case 'pause':
    case 'resume':
    case 'cancel':
      return { method: 'POST', path: `${sub()}/${action}` };
    case 'list':
      return {
        method: 'GET',
        path: `${app()}/dues${query(flags, [['subscriber-id', 'subscriber_id'], ['status', 'status'], ['limit', 'limit'], ['cursor', 'cursor']])}`,
        columns: ['due_id', 'subscriber_name', 'due_date', 'amount', 'status', 'reminders_sent', 'next_action_at', 'version'],
      };
    case 'waive':
      return { method: 'POST', path: `${due()}/waive` };
    case 'cancel-due':
      return { method: 'POST', path: `${due()}/cancel` };
    case 'paid': {
      const body: Record<string, unknown> = {};
      if (number(flags, 'expected-version') !== undefined) body.expected_version = number(flags, 'expected-version');
      if (number(flags, 'amount') !== undefined) body.amount = number(flags, 'amount');
      if (text(flags, 'reference') !== undefined) body.reference = text(flags, 'reference');
      if (text(flags, 'marked-by-name') !== undefined) body.marked_by_name = text(flags, 'marked-by-name');
      return { method: 'POST', path: `${due()}/paid`, body };
    }
    case 'gateway-paid': {
      const body: Record<string, unknown> = {};
      if (number(flags, 'amount') !== undefined) body.amount = number(flags, 'amount');
      if (text(flags, 'reference') !== undefined) body.reference = text(flags, 'reference');
      return { method: 'POST', path: `${due()}/gateway-payment`, body };
    }
    case 'link-script':
      return { method: 'GET', path: `${ws()}/simulator/payment-links` };
    case 'script-links': {
      const body: Record<string, unknown> = {};
      if (text(flags, 'create') !== undefined) body.create = text(flags, 'create');
      if (number(flags, 'paid-after-minutes') !== undefined) body.paid_after_minutes = number(flags, 'paid-after-minutes');
      return { method: 'PUT', path: `${ws()}/simulator/payment-links`, body };
    }
    case 'reset-links':
      return { method: 'DELETE', path: `${ws()}/simulator/payment-links` };
    default:
      return null;
  }
}
