/**
 * How the console CLI words a failure for a person (issue 35 §10): one line saying what went
 * wrong, then a hint, never the whole usage or the error envelope's raw JSON. `--json` still
 * prints the envelope as it is, for scripts.
 */

/** The lines of `usage` that describe the command the person typed (`keys create`), or of its resource when the action is unknown. */
export function usageOf(usage: string, positionals: string[]): string[] {
  const [resource, action] = positionals;
  if (!resource) return [];
  const lines = usage.split('\n');
  const pick = (starts: (line: string) => boolean) => {
    const picked: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (!starts(lines[i]!)) continue;
      picked.push(lines[i]!);
      // A command's continuation lines are indented further than its first.
      while (i + 1 < lines.length && /^ {4,}\S/.test(lines[i + 1]!)) picked.push(lines[++i]!);
    }
    return picked;
  };
  const command = `  ${resource} ${action ?? ''}`;
  const exact = action ? pick((line) => line.startsWith(`${command} `) || line.trimEnd() === command) : [];
  return exact.length > 0 ? exact : pick((line) => line.startsWith(`  ${resource} `));
}

/** A usage mistake: the message, then how the command is written (or where to find every command). */
export function usageErrorText(message: string, usage: string, positionals: string[]): string {
  const lines = usageOf(usage, positionals);
  const hint = lines.length > 0 ? ['hint: it is written', ...lines.map((l) => `  ${l.trim()}`)] : ['hint: npm run console -- --help lists every command'];
  return [`error: ${message}`, ...hint].join('\n');
}

interface Envelope {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

interface FieldError {
  loc?: (string | number)[];
  msg?: string;
}

/** Where a refused value was: `scopes (value 1)`, `voice.idle_seconds`, `<workspace_id>` for a path part. */
function placeOf(loc: (string | number)[]): string {
  const [where, ...path] = loc;
  const named = path.filter((p): p is string => typeof p === 'string');
  const item = path.find((p): p is number => typeof p === 'number');
  if (named.length === 0) return 'the request';
  if (where === 'path') return `<${named[named.length - 1]}>`;
  return `${named.join('.')}${item === undefined ? '' : ` (value ${item + 1})`}`;
}

/** zod's "Invalid option: expected one of "a"|"b"" as a sentence: `expected one of a, b`. */
function sentence(msg: string): string {
  const oneOf = /expected one of (.+)$/.exec(msg);
  if (oneOf) return `expected one of ${oneOf[1]!.split('|').map((o) => o.replace(/^"|"$/g, '')).join(', ')}`;
  return msg;
}

/**
 * A refusal from the console API in words: one line with the message (or, for a validation
 * failure, where and why), then a hint line with the fix the API gives, the details that
 * matter as words, and the code and reason; nothing as JSON (`--json` prints the envelope).
 */
export function apiErrorText(envelope: Envelope): string {
  const details = envelope.details ?? {};
  const fields = Array.isArray(details.errors) ? (details.errors as FieldError[]) : [];
  const lines =
    fields.length > 0
      ? fields.map((f, i) => `${i === 0 ? 'error: ' : '       '}${placeOf(f.loc ?? [])}: ${sentence(f.msg ?? 'refused')}`)
      : [`error: ${envelope.message}`];
  const facts = Object.entries(details)
    .filter(([key, value]) => !['errors', 'reason', 'fix'].includes(key) && value !== null && (typeof value !== 'object' || Array.isArray(value)))
    .map(([key, value]) => `${key.replace(/_/g, ' ')} ${Array.isArray(value) ? value.join('.') : String(value as string | number | boolean)}`);
  const hint = [
    typeof details.fix === 'string' ? details.fix.replace(/\.$/, '') : null,
    ...facts,
    `${envelope.code}${typeof details.reason === 'string' ? ` (${details.reason})` : ''}; --json prints the whole answer`,
  ].filter(Boolean);
  return [...lines, `hint: ${hint.join('; ')}`].join('\n');
}
