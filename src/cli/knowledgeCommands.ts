import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { Flags } from './cliFlags';
import { UsageError } from './usageError';

/**
 * The console CLI's `knowledge …` and `tools …` commands (docs/console.md, docs/agents.md
 * "Knowledge" and "Business tools"): a workspace's documents its agents search, and the HTTP
 * tools its agents call. One console API call each; a document's file is sent as it is on
 * disk, its media type named by its extension (or `--format`).
 */

export interface KnowledgeCommand {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  file?: { path: string; contentType: string };
  columns?: string[];
  format?: (body: Record<string, unknown>) => string;
}

export const KNOWLEDGE_USAGE = `  knowledge upload <workspace_id> <file> [--name <name>] [--format text|markdown|pdf|faq_csv]
                   a .txt, .md, .pdf, or .csv of FAQs (columns question,answer), searched by the agents
  knowledge list <workspace_id>
  knowledge show <workspace_id> <document_id>
  knowledge delete <workspace_id> <document_id>
  knowledge search <workspace_id> --query <words>     what an agent's search_knowledge would find
  tools add <workspace_id> --name <name> --description <text> --url <url>
            --parameters <JSON schema>|@<file.json> [--timeout-ms 10000]
  tools list <workspace_id>
  tools show <workspace_id> <name>
  tools delete <workspace_id> <name>`;

type Need = (value: string | undefined, what: string) => string;

/** The media type each format is uploaded as (the server reads the format from it). */
const MEDIA_TYPES: Record<string, string> = { text: 'text/plain', markdown: 'text/markdown', pdf: 'application/pdf', faq_csv: 'text/csv' };
const FORMAT_BY_EXTENSION: Record<string, string> = { '.txt': 'text', '.text': 'text', '.md': 'markdown', '.markdown': 'markdown', '.pdf': 'pdf', '.csv': 'faq_csv' };

const ALLOWED: Record<string, Record<string, readonly string[]>> = {
  knowledge: { upload: ['name', 'format'], list: [], show: [], delete: [], search: ['query'] },
  tools: { add: ['name', 'description', 'url', 'parameters', 'timeout-ms'], list: [], show: [], delete: [] },
};

function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === true) throw new UsageError(`--${name} takes a value`);
  return value === undefined ? undefined : String(value);
}

function required(flags: Flags, name: string): string {
  const value = text(flags, name);
  if (value === undefined || value === '') throw new UsageError(`missing --${name}`);
  return value;
}

function formatOf(file: string, flags: Flags): string {
  const format = text(flags, 'format') ?? FORMAT_BY_EXTENSION[extname(file).toLowerCase()];
  if (!format || !MEDIA_TYPES[format]) {
    throw new UsageError(`cannot tell the format of ${file}: name it with --format text|markdown|pdf|faq_csv`);
  }
  return format;
}

/** `--parameters '{"type":"object",…}'` or `--parameters @schema.json`. */
function parameters(raw: string): Record<string, unknown> {
  let source = raw;
  if (raw.startsWith('@')) {
    try {
      source = readFileSync(raw.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${raw.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  try {
    return JSON.parse(source) as Record<string, unknown>;
  } catch {
    throw new UsageError('--parameters takes a JSON schema (or @file.json)');
  }
}

/** The passages a search found, each with the document it came from, and the trail row an agent would leave. */
export function formatSearch(body: Record<string, unknown>): string {
  const output = body.output as { passages?: { document_name: string; document_id: string; section: string | null; page?: number; text: string }[]; note?: string; error?: string };
  const trail = body.trail as { text: string };
  const lines = [`trail: ${trail.text}`];
  if (output.error) lines.push(`error: ${output.error}`);
  if (output.note) lines.push(output.note);
  for (const p of output.passages ?? []) {
    const where = [p.section, p.page !== undefined ? `page ${p.page}` : null].filter(Boolean).join(', ');
    lines.push('', `${p.document_name} (${p.document_id})${where ? ` — ${where}` : ''}`, p.text);
  }
  return lines.join('\n');
}

/** The call for a knowledge or tools command, or null when the command is not one of these. */
export function planKnowledgeCommand(positionals: string[], flags: Flags, need: Need): KnowledgeCommand | null {
  const [resource, action, workspace, third] = positionals;
  if ((resource !== 'knowledge' && resource !== 'tools') || action === undefined) return null;
  const allowed = ALLOWED[resource]![action];
  if (!allowed) throw new UsageError(`unknown command: ${resource} ${action}`);
  const unknown = Object.keys(flags).filter((f) => f !== 'json' && !allowed.includes(f));
  if (unknown.length > 0) throw new UsageError(`unknown flag for ${resource} ${action}: ${unknown.map((f) => `--${f}`).join(', ')}`);
  const ws = `/workspaces/${encodeURIComponent(need(workspace, '<workspace_id>'))}`;

  if (resource === 'knowledge') {
    const base = `${ws}/knowledge/documents`;
    switch (action) {
      case 'upload': {
        const file = need(third, '<file>');
        const query = new URLSearchParams({ name: text(flags, 'name') ?? basename(file, extname(file)), file_name: basename(file) });
        return { method: 'POST', path: `${base}?${query.toString()}`, file: { path: file, contentType: MEDIA_TYPES[formatOf(file, flags)]! } };
      }
      case 'list':
        return { method: 'GET', path: base, columns: ['document_id', 'name', 'format', 'passages', 'bytes', 'created_at'] };
      case 'show':
        return { method: 'GET', path: `${base}/${encodeURIComponent(need(third, '<document_id>'))}` };
      case 'delete':
        return { method: 'DELETE', path: `${base}/${encodeURIComponent(need(third, '<document_id>'))}` };
      default:
        return { method: 'POST', path: `${ws}/knowledge/search`, body: { query: required(flags, 'query') }, format: formatSearch };
    }
  }

  const base = `${ws}/tools`;
  switch (action) {
    case 'add': {
      const timeout = text(flags, 'timeout-ms');
      if (timeout !== undefined && !/^\d+$/.test(timeout)) throw new UsageError(`--timeout-ms takes milliseconds, not ${JSON.stringify(timeout)}`);
      return {
        method: 'POST',
        path: base,
        body: {
          name: required(flags, 'name'),
          description: required(flags, 'description'),
          url: required(flags, 'url'),
          parameters: parameters(required(flags, 'parameters')),
          ...(timeout !== undefined ? { timeout_ms: Number(timeout) } : {}),
        },
      };
    }
    case 'list':
      return { method: 'GET', path: base, columns: ['name', 'url', 'timeout_ms', 'description'] };
    case 'show':
      return { method: 'GET', path: `${base}/${encodeURIComponent(need(third, '<name>'))}` };
    default:
      return { method: 'DELETE', path: `${base}/${encodeURIComponent(need(third, '<name>'))}` };
  }
}
