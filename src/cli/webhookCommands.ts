/**
 * The console CLI's `webhooks …` and `event-types` commands (docs/console.md, docs/webhooks.md),
 * planned as one console API call each. Flags are read here rather than by the shared
 * bodyFromFlags so URLs, descriptions and type lists stay text.
 */

import type { Flags } from './cliFlags';

export interface WebhookCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  columns?: string[];
}

export const WEBHOOK_USAGE = `  event-types list
  webhooks list <workspace_id>
  webhooks show <workspace_id> <webhook_id>
  webhooks create <workspace_id> --url <url> [--event-types <type,type>|all] [--enabled true|false] [--description <text>]
  webhooks update <workspace_id> <webhook_id> [--url …] [--event-types <type,type>|all] [--enabled true|false] [--description <text>]
  webhooks disable <workspace_id> <webhook_id>
  webhooks enable <workspace_id> <webhook_id>
  webhooks rotate-secret <workspace_id> <webhook_id>
  webhooks delete <workspace_id> <webhook_id>
  webhooks test <workspace_id> <webhook_id>
  webhooks deliveries <workspace_id> <webhook_id> [--status pending|succeeded|failed|cancelled] [--event-id evt_…] [--limit 50] [--cursor …]
  webhooks delivery <workspace_id> <webhook_id> <delivery_id>
  webhooks replay <workspace_id> <webhook_id> --event-id evt_…`;


function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return value === undefined || value === true ? undefined : String(value);
}

/** `--event-types all` (or an empty value) ticks none, which receives every type. */
function endpointBody(flags: Flags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const url = text(flags, 'url');
  if (url !== undefined) body.url = url;
  if (flags['event-types'] !== undefined) {
    const raw = text(flags, 'event-types') ?? '';
    body.event_types = raw === 'all' ? [] : raw.split(',').map((t) => t.trim()).filter(Boolean);
  }
  if (flags.enabled !== undefined) body.enabled = flags.enabled === true || flags.enabled === 'true';
  if (flags.description !== undefined) body.description = flags.description === 'none' ? null : (text(flags, 'description') ?? '');
  return body;
}

/** The call for a webhook command, or null when the command is not one of these. */
export function planWebhookCall(positionals: string[], flags: Flags, need: (value: string | undefined, what: string) => string): WebhookCall | null {
  const [resource, action, workspace, webhook, delivery] = positionals;
  if (`${resource} ${action}` === 'event-types list') return { method: 'GET', path: '/event-types' };
  if (resource !== 'webhooks') return null;
  const ws = () => `/workspaces/${encodeURIComponent(need(workspace, '<workspace_id>'))}/webhooks`;
  const one = () => `${ws()}/${encodeURIComponent(need(webhook, '<webhook_id>'))}`;
  switch (action) {
    case 'list':
      return { method: 'GET', path: ws(), columns: ['webhook_id', 'url', 'event_types', 'enabled', 'success_rate.percent', 'success_rate.attempts', 'description'] };
    case 'show':
      return { method: 'GET', path: one() };
    case 'create':
      return { method: 'POST', path: ws(), body: endpointBody(flags) };
    case 'update':
      return { method: 'PATCH', path: one(), body: endpointBody(flags) };
    case 'disable':
    case 'enable':
      return { method: 'PATCH', path: one(), body: { enabled: action === 'enable' } };
    case 'rotate-secret':
      return { method: 'POST', path: `${one()}/rotate-secret` };
    case 'delete':
      return { method: 'DELETE', path: one() };
    case 'test':
      return { method: 'POST', path: `${one()}/test` };
    case 'deliveries': {
      const query = new URLSearchParams();
      for (const [flag, param] of [['status', 'status'], ['event-id', 'event_id'], ['limit', 'limit'], ['cursor', 'cursor']] as const) {
        const value = text(flags, flag);
        if (value !== undefined) query.set(param, value);
      }
      const qs = query.toString();
      return {
        method: 'GET',
        path: `${one()}/deliveries${qs ? `?${qs}` : ''}`,
        columns: ['delivery_id', 'event_type', 'trigger', 'status', 'attempt_count', 'last_status_code', 'next_attempt_at'],
      };
    }
    case 'delivery':
      return { method: 'GET', path: `${one()}/deliveries/${encodeURIComponent(need(delivery, '<delivery_id>'))}` };
    case 'replay':
      return { method: 'POST', path: `${one()}/replay`, body: { event_id: need(text(flags, 'event-id'), '--event-id') } };
    default:
      return null;
  }
}
