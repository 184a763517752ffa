import { Fragment, type ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { paths } from '../generated/console';
import { ErrorNote, Listing, Options } from '../components/common';
import { useAction, usePoll, type Action } from '../hooks';

type Agent = paths['/console/v1/workspaces/{workspace_id}/agents/{agent_id}']['get']['responses'][200]['content']['application/json'];
type Num = paths['/console/v1/workspaces/{workspace_id}/numbers/{number}']['patch']['responses'][200]['content']['application/json'];
type Sender = paths['/console/v1/workspaces/{workspace_id}/senders/{sender_id}']['patch']['responses'][200]['content']['application/json'];
type VoiceField = Agent['voice_set'][number];

/** The voice settings as a form shows them: label, control and a hint on what they do. */
const VOICE_FIELDS: { field: VoiceField; label: string; multiline?: boolean; hint: string }[] = [
  { field: 'persona', label: 'Persona', multiline: true, hint: 'Who the agent is, in a sentence.' },
  { field: 'instructions', label: 'Instructions', multiline: true, hint: 'Standing rules added to every call’s own.' },
  { field: 'greeting', label: 'Greeting', multiline: true, hint: 'Said first on an inbound call; an outbound call opens with the fixed opening.' },
  { field: 'voice', label: 'Voice', hint: 'The speech model’s voice name, e.g. alloy.' },
  { field: 'language', label: 'Language', hint: 'BCP 47, e.g. en-IN, hi-IN, ta.' },
  { field: 'idle_seconds', label: 'Idle seconds', hint: 'Silence after which the call ends as idle (5–300).' },
];

/**
 * A workspace's agents with what they need on a real line (persona, instructions, greeting,
 * voice, language, idle threshold), and its numbers: the agent deployed to each and its team
 * line, where the agent hands a caller to a person. Loaded once and after each change, not
 * polled: a poll would overwrite what is being typed.
 */
export function AgentsPage({ ws }: { ws: string }) {
  const path = { workspace_id: ws };
  const agents = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/agents', { params: { path } }))).items as Agent[], 0, [ws]);
  const numbers = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/numbers', { params: { path } }))).items as Num[], 0, [ws]);
  const senders = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/senders', { params: { path } }))).items as Sender[], 0, [ws]);
  const [name, setName] = useState('');
  const create = useAction();
  return (
    <>
      <h1>Agents and numbers</h1>
      <section aria-labelledby="agents-heading">
        <h2 id="agents-heading">Agents</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/agents', { params: { path }, body: { name } as never }));
              setName('');
              await agents.reload();
            });
          }}
        >
          <label for="agent-name">New agent’s name</label>
          <input id="agent-name" required maxLength={120} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          <button type="submit" disabled={create.busy}>
            Create agent
          </button>
        </form>
        <Listing of={agents} what="agents" failed={create.error} empty={<p>No agents yet.</p>}>
          {/* Keyed by the whole agent: a saved change starts the form again from what the server kept. */}
          {(rows) => rows.map((a) => <AgentSettings key={JSON.stringify(a)} ws={ws} agent={a} onSaved={() => void agents.reload()} />)}
        </Listing>
      </section>
      <section aria-labelledby="numbers-heading">
        <h2 id="numbers-heading">Numbers</h2>
        <Listing of={numbers} what="numbers" empty={<p>No numbers yet (add one with the CLI: numbers add).</p>}>
          {(rows) => (
            <ul class="cards">
              {rows.map((n) => (
                <NumberSettings key={JSON.stringify(n)} ws={ws} number={n} agents={agents.data ?? []} onSaved={() => void numbers.reload()} />
              ))}
            </ul>
          )}
        </Listing>
      </section>
      <section aria-labelledby="senders-heading">
        <h2 id="senders-heading">WhatsApp senders</h2>
        <p class="hint">The agent deployed to a sender answers its customers’ messages (one agent per sender); held conversations wait in the Inbox.</p>
        <Listing of={senders} what="senders" empty={<p>No WhatsApp senders yet (add one with the CLI: senders add).</p>}>
          {(rows) => (
            <ul class="cards">
              {rows.map((sender) => (
                <SenderDeployment key={JSON.stringify(sender)} ws={ws} sender={sender} agents={agents.data ?? []} onSaved={() => void senders.reload()} />
              ))}
            </ul>
          )}
        </Listing>
      </section>
    </>
  );
}

/** Deploys a chat agent to a WhatsApp sender, or none. */
function SenderDeployment({ ws, sender, agents, onSaved }: { ws: string; sender: Sender; agents: Agent[]; onSaved: () => void }) {
  const [agentId, setAgentId] = useState(sender.agent_id ?? '');
  const save = useAction();
  const id = `sender-${sender.sender_id}-agent`;
  return (
    <li>
      <form
        class="settings"
        aria-label={`Sender ${sender.display_name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            await unwrap(
              api.PATCH('/console/v1/workspaces/{workspace_id}/senders/{sender_id}', { params: { path: { workspace_id: ws, sender_id: sender.sender_id } }, body: { agent_id: agentId || null } }),
            );
            onSaved();
          });
        }}
      >
        <h3 class="span">
          {sender.display_name} <span class="muted">{sender.phone}{sender.connected ? '' : ', not connected'}</span>
        </h3>
        <label for={id}>Chat agent</label>
        <select id={id} value={agentId} onChange={(e) => setAgentId((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">None (undeployed)</option>
          <Options of={agents.map((a) => [a.agent_id, `${a.name} (${a.agent_id})`])} />
        </select>
        <SettingsFoot save={save} name={sender.display_name} />
      </form>
    </li>
  );
}

function AgentSettings({ ws, agent, onSaved }: { ws: string; agent: Agent; onSaved: () => void }) {
  const [draft, setDraft] = useState({ name: agent.name, max_call_minutes: String(agent.max_call_minutes), ...stringValues(agent.voice) });
  const save = useAction();
  const id = (field: string) => `${agent.agent_id}-${field}`;
  const set = (field: string) => (e: Event) => {
    const value = (e.currentTarget as HTMLInputElement).value;
    setDraft((current) => ({ ...current, [field]: value }));
  };
  const path = { workspace_id: ws, agent_id: agent.agent_id };
  const submit = (body: Record<string, unknown>) =>
    save.run(async () => {
      await unwrap(api.PATCH('/console/v1/workspaces/{workspace_id}/agents/{agent_id}', { params: { path }, body: body as never }));
      onSaved();
    });
  return (
    <details class="agent">
      <summary>
        <strong>{agent.name}</strong> <code>{agent.agent_id}</code>{' '}
        <span class="muted">
          {agent.voice.language}, {agent.voice.voice}, up to {agent.max_call_minutes} min
        </span>
      </summary>
      <form
        class="settings"
        aria-label={`Settings of ${agent.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          // Only what changed is sent: a setting left at its default stays one.
          const voice: Record<string, unknown> = {};
          for (const { field } of VOICE_FIELDS) {
            const before = String(agent.voice[field]);
            if (draft[field] !== before) voice[field] = field === 'idle_seconds' ? Number(draft[field]) : draft[field];
          }
          const body: Record<string, unknown> = {};
          if (draft.name !== agent.name) body.name = draft.name;
          if (draft.max_call_minutes !== String(agent.max_call_minutes)) body.max_call_minutes = Number(draft.max_call_minutes);
          if (Object.keys(voice).length > 0) body.voice = voice;
          void submit(body);
        }}
      >
        <label for={id('name')}>Name</label>
        <input id={id('name')} required value={draft.name} onInput={set('name')} />
        <label for={id('max')}>Longest call (minutes)</label>
        <input id={id('max')} type="number" min={1} max={120} required value={draft.max_call_minutes} onInput={set('max_call_minutes')} />
        {VOICE_FIELDS.map(({ field, label, multiline, hint }) => (
          <Fragment key={field}>
            <label for={id(field)}>
              {label}
              {agent.voice_set.includes(field) ? null : <span class="muted"> (default)</span>}
            </label>
            <div>
              {multiline ? (
                <textarea id={id(field)} rows={field === 'instructions' ? 6 : 2} value={draft[field]} onInput={set(field)} aria-describedby={id(`${field}-hint`)} />
              ) : field === 'idle_seconds' ? (
                <input id={id(field)} type="number" min={5} max={300} required value={draft[field]} onInput={set(field)} aria-describedby={id(`${field}-hint`)} />
              ) : (
                <input id={id(field)} type="text" value={draft[field]} onInput={set(field)} aria-describedby={id(`${field}-hint`)} />
              )}
              <p class="hint" id={id(`${field}-hint`)}>
                {hint}
              </p>
            </div>
          </Fragment>
        ))}
        <SettingsFoot save={save} name={agent.name} primary>
          <button
            type="button"
            disabled={save.busy || agent.voice_set.length === 0}
            onClick={() => void submit({ voice: Object.fromEntries(agent.voice_set.map((f) => [f, null])) })}
          >
            Back to the default voice settings<span class="visually-hidden"> for {agent.name}</span>
          </button>
        </SettingsFoot>
      </form>
    </details>
  );
}

function NumberSettings({ ws, number, agents, onSaved }: { ws: string; number: Num; agents: Agent[]; onSaved: () => void }) {
  const [agentId, setAgentId] = useState(number.agent_id ?? '');
  const [teamLine, setTeamLine] = useState(number.team_line ?? '');
  const save = useAction();
  const digits = number.number.slice(1);
  return (
    <li>
      <form
        class="settings"
        aria-label={`Number ${number.number}`}
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            await unwrap(
              api.PATCH('/console/v1/workspaces/{workspace_id}/numbers/{number}', {
                params: { path: { workspace_id: ws, number: digits } },
                body: { agent_id: agentId || null, team_line: teamLine.trim() || null },
              }),
            );
            onSaved();
          });
        }}
      >
        <h3 class="span">
          {number.number} <span class="muted">{number.active ? 'active' : 'inactive'}{number.recording ? ', recorded' : ''}</span>
        </h3>
        <label for={`number-${digits}-agent`}>Agent</label>
        <select id={`number-${digits}-agent`} value={agentId} onChange={(e) => setAgentId((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">None</option>
          <Options of={agents.map((a) => [a.agent_id, `${a.name} (${a.agent_id})`])} />
        </select>
        <label for={`number-${digits}-team`}>Team line</label>
        <div>
          <input id={`number-${digits}-team`} type="tel" value={teamLine} placeholder="+91…" onInput={(e) => setTeamLine((e.currentTarget as HTMLInputElement).value)} aria-describedby={`number-${digits}-team-hint`} />
          <p class="hint" id={`number-${digits}-team-hint`}>
            Where the agent hands a caller to a person; empty for no hand-over.
          </p>
        </div>
        <SettingsFoot save={save} name={number.number} />
      </form>
    </li>
  );
}

/** A settings form's foot: Save (named for what it saves), any other buttons, and the save's refusal. */
function SettingsFoot({ save, name, primary, children }: { save: Action; name: string; primary?: boolean; children?: ComponentChildren }) {
  return (
    <>
      <div class="controls span">
        <button type="submit" class={primary ? 'primary' : undefined} disabled={save.busy}>
          Save<span class="visually-hidden"> {name}</span>
        </button>
        {children}
      </div>
      <div class="span">
        <ErrorNote error={save.error} />
      </div>
    </>
  );
}

function stringValues(voice: Agent['voice']): Record<VoiceField, string> {
  return Object.fromEntries(Object.entries(voice).map(([k, v]) => [k, String(v)])) as Record<VoiceField, string>;
}
