import { basename, extname } from 'node:path';
import { UsageError } from './usageError';
import type { Flags } from './cliFlags';

/**
 * The console CLI's `lists …` commands (docs/console.md, "Uploaded lists"): upload a CSV of
 * people, list the workspace's lists, show one. Planned here as one console API call each;
 * the upload's file is read by the caller, which sends its bytes as they are (text/csv).
 */

export interface ListCommand {
  method: 'GET' | 'POST';
  path: string;
  /** A file to send as the body, as it is on disk. */
  file?: { path: string; contentType: 'text/csv' };
  columns?: string[];
  format?: (body: Record<string, unknown>) => string;
}

export const LIST_USAGE = `  lists upload <workspace_id> <file.csv> [--name <name>] [--phone-column <column>]
                                         a CSV with a header row (UTF-8); its columns become {{variables}}
  lists list <workspace_id> [--limit 50] [--cursor …]
  lists show <workspace_id> <list_id>     columns, variables and the first rows`;

type Need = (value: string | undefined, what: string) => string;

const ALLOWED: Record<string, readonly string[]> = { upload: ['name', 'phone-column'], list: ['limit', 'cursor'], show: [] };

function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === true) throw new UsageError(`--${name} takes a value`);
  return value === undefined ? undefined : String(value);
}

function query(pairs: [string, string | undefined][]): string {
  const qs = new URLSearchParams(pairs.filter((p): p is [string, string] => p[1] !== undefined)).toString();
  return qs ? `?${qs}` : '';
}

/** A list's columns as `name (Header)`, its variables and its first rows, for a person. */
export function formatList(body: Record<string, unknown>): string {
  const columns = (body.columns as { name: string; header: string }[] | undefined) ?? [];
  const preview = (body.preview as { row: number; values: Record<string, string> }[] | undefined) ?? [];
  const lines = [
    `list_id       ${String(body.list_id)}`,
    `name          ${String(body.name)}`,
    `rows          ${String(body.rows)}`,
    `phone_column  ${String(body.phone_column)}`,
    `variables     ${(body.variables as string[] | undefined)?.join(' ') ?? ''}`,
  ];
  if (preview.length > 0) {
    const names = ['row', ...columns.map((c) => c.name)];
    const rows = preview.map((r) => [String(r.row), ...columns.map((c) => r.values[c.name] || '-')]);
    const widths = names.map((n, i) => Math.max(n.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
    lines.push('', `first ${preview.length} rows:`, line(names), ...rows.map(line));
  }
  return lines.join('\n');
}

/** The call for a list command, or null when the command is not one of these. */
export function planListCommand(positionals: string[], flags: Flags, need: Need): ListCommand | null {
  const [resource, action, workspace, third] = positionals;
  if (resource !== 'lists' || action === undefined) return null;
  const allowed = ALLOWED[action];
  if (!allowed) throw new UsageError(`unknown command: lists ${action}`);
  const unknown = Object.keys(flags).filter((f) => f !== 'json' && !allowed.includes(f));
  if (unknown.length > 0) throw new UsageError(`unknown flag for lists ${action}: ${unknown.map((f) => `--${f}`).join(', ')}`);
  const base = `/workspaces/${encodeURIComponent(need(workspace, '<workspace_id>'))}/lists`;
  switch (action) {
    case 'upload': {
      const file = need(third, '<file.csv>');
      const name = text(flags, 'name') ?? basename(file, extname(file));
      return {
        method: 'POST',
        path: `${base}${query([
          ['name', name],
          ['file_name', basename(file)],
          ['phone_column', text(flags, 'phone-column')],
        ])}`,
        file: { path: file, contentType: 'text/csv' },
        format: formatList,
      };
    }
    case 'list':
      return {
        method: 'GET',
        path: `${base}${query([
          ['limit', text(flags, 'limit')],
          ['cursor', text(flags, 'cursor')],
        ])}`,
        columns: ['list_id', 'name', 'rows', 'phone_column', 'variables', 'created_at'],
      };
    default:
      return { method: 'GET', path: `${base}/${encodeURIComponent(need(third, '<list_id>'))}`, format: formatList };
  }
}
