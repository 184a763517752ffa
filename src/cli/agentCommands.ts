import { UsageError } from './usageError';
import type { Flags } from './cliFlags';

/**
 * The console CLI's `agents …` commands: an agent's name, maximum call length and the voice
 * settings a real line uses (docs/console.md, "Agents and numbers"). The voice flags are
 * given flat (`--greeting …`) and sent under `voice`; `--reset a,b` sends those as null, which
 * puts them back to the defaults. What a value may be is the console API's to say.
 */

export interface AgentCall {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: Record<string, unknown>;
  columns?: string[];
}

export const AGENT_USAGE = `  agents list <workspace_id>
  agents show <workspace_id> <agent_id>
  agents create <workspace_id> --name <name> [--max-call-minutes 10] [voice flags]
  agents update <workspace_id> <agent_id> [--name …] [--max-call-minutes …] [voice flags]
                [--reset persona,instructions,voice,language,greeting,idle-seconds]  (back to the defaults)
     voice flags: [--persona <text>] [--instructions <text>] [--voice alloy] [--language en-IN]
                  [--greeting <text>] [--idle-seconds 20]`;


/** Flag name → the voice field it sets; text flags stay text, `--idle-seconds` is a number. */
const VOICE_FLAGS = {
  persona: 'persona',
  instructions: 'instructions',
  voice: 'voice',
  language: 'language',
  greeting: 'greeting',
  'idle-seconds': 'idle_seconds',
} as const;

const OTHER_FLAGS = new Set(['name', 'max-call-minutes', 'reset', 'json']);

function value(flags: Flags, flag: string): string | undefined {
  const given = flags[flag];
  if (typeof given === 'boolean') throw new UsageError(`--${flag} needs a value`);
  return given;
}

/** The body of `agents create` / `agents update`: only what was given. */
export function agentBody(flags: Flags, allowReset: boolean): Record<string, unknown> {
  const unknown = Object.keys(flags).filter((f) => !(f in VOICE_FLAGS) && !OTHER_FLAGS.has(f));
  if (unknown.length > 0) throw new UsageError(`unknown flag for agents: ${unknown.map((f) => `--${f}`).join(', ')}`);
  const body: Record<string, unknown> = {};
  const name = value(flags, 'name');
  if (name !== undefined) body.name = name;
  const minutes = value(flags, 'max-call-minutes');
  if (minutes !== undefined) body.max_call_minutes = Number(minutes);
  const voice: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(VOICE_FLAGS)) {
    const given = value(flags, flag);
    // A number that is no number is sent as written, so the API names the field it refuses.
    if (given !== undefined) voice[field] = field === 'idle_seconds' && given.trim() !== '' && Number.isFinite(Number(given)) ? Number(given) : given;
  }
  const reset = value(flags, 'reset');
  if (reset !== undefined) {
    if (!allowReset) throw new UsageError('--reset is for agents update');
    for (const flag of reset.split(',').map((s) => s.trim()).filter(Boolean)) {
      const field = VOICE_FLAGS[flag as keyof typeof VOICE_FLAGS] ?? VOICE_FLAGS[flag.replace(/_/g, '-') as keyof typeof VOICE_FLAGS];
      if (!field) throw new UsageError(`--reset takes voice settings (${Object.keys(VOICE_FLAGS).join(', ')}), not ${JSON.stringify(flag)}`);
      if (field in voice) throw new UsageError(`--reset ${flag} and --${flag} cannot go together`);
      voice[field] = null;
    }
  }
  if (Object.keys(voice).length > 0) body.voice = voice;
  return body;
}

/** An `agents …` command as one console API call, or null when the command is not one of these. */
export function planAgentCommand(positionals: string[], flags: Flags, need: (id: string | undefined, what: string) => string): AgentCall | null {
  const [resource, action, first, second] = positionals;
  if (resource !== 'agents') return null;
  const ws = () => `/workspaces/${encodeURIComponent(need(first, '<workspace_id>'))}`;
  const agent = () => `${ws()}/agents/${encodeURIComponent(need(second, '<agent_id>'))}`;
  switch (action) {
    case 'list':
      return { method: 'GET', path: `${ws()}/agents`, columns: ['agent_id', 'name', 'max_call_minutes', 'voice.voice', 'voice.language', 'voice.idle_seconds'] };
    case 'show':
      return { method: 'GET', path: agent() };
    case 'create':
      return { method: 'POST', path: `${ws()}/agents`, body: agentBody(flags, false) };
    case 'update':
      return { method: 'PATCH', path: agent(), body: agentBody(flags, true) };
    default:
      return null;
  }
}
