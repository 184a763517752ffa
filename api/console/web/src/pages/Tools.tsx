import { useState } from 'preact/hooks';
import { createTool, deleteTool, loadTools, type BusinessTool } from '../api/knowledge';
import { ConfirmDialog, ErrorNote, Listing, ShownOnce } from '../components/common';
import { EmptyState } from '../components/forms';
import { useAction, usePoll } from '../hooks';

const EXAMPLE_PARAMETERS = JSON.stringify({ type: 'object', properties: { order_id: { type: 'string', description: 'The order number' } }, required: ['order_id'] }, null, 2);

/**
 * Agent tools: HTTP endpoints of the business that the workspace's agents call mid-chat or
 * mid-call (docs/agents.md "Business tools"). Each call is a POST of the arguments as JSON,
 * signed like a webhook with the tool's secret (shown once, when it is declared).
 */
export function ToolsPage({ ws }: { ws: string }) {
  const tools = usePoll(() => loadTools(ws), 0, [ws]);
  const [form, setForm] = useState({ name: '', description: '', url: '', parameters: EXAMPLE_PARAMETERS, timeout: '10000' });
  const [secret, setSecret] = useState<{ label: string; value: string }>();
  const [removing, setRemoving] = useState<BusinessTool>();
  const [schemaError, setSchemaError] = useState<string>();
  const create = useAction();
  const remove = useAction();
  const field = (key: keyof typeof form) => (e: Event) => setForm({ ...form, [key]: (e.currentTarget as HTMLInputElement).value });
  return (
    <>
      <h1>Agent tools</h1>
      <p>
        A tool is an HTTP endpoint of yours that your agents call when a customer needs something done or looked up. The agent sends a POST with the arguments as
        JSON, signed like our webhooks (check it with the tool’s secret), and waits up to the tool’s timeout; your JSON answer is what the agent is told. Answer{' '}
        <code>{'{"hand_over": {"reason": "…"}}'}</code> to pass the conversation to a person.
      </p>
      {secret ? <ShownOnce label={secret.label} value={secret.value} onDismiss={() => setSecret(undefined)} /> : null}
      <form
        class="tool-form"
        aria-label="Declare a tool"
        onSubmit={(e) => {
          e.preventDefault();
          let parameters: Record<string, unknown>;
          try {
            parameters = JSON.parse(form.parameters) as Record<string, unknown>;
            setSchemaError(undefined);
          } catch {
            setSchemaError('The parameters are not valid JSON.');
            return;
          }
          void create.run(async () => {
            const made = await createTool(ws, { name: form.name.trim(), description: form.description.trim(), url: form.url.trim(), parameters, timeout_ms: Number(form.timeout) });
            setSecret({ label: `Signing secret for ${made.name}`, value: made.secret });
            setForm({ ...form, name: '', description: '', url: '' });
            await tools.reload();
          });
        }}
      >
        <label for="tool-name">Name (what the agent calls it)</label>
        <input id="tool-name" required pattern="[a-zA-Z0-9_\-]{1,64}" value={form.name} placeholder="lookup_order" onInput={field('name')} />
        <label for="tool-description">What it does and when to use it</label>
        <input id="tool-description" required maxLength={1000} value={form.description} placeholder="Look up an order by its number." onInput={field('description')} />
        <label for="tool-url">URL</label>
        <input id="tool-url" type="url" required value={form.url} placeholder="https://shop.example.com/agent/orders" onInput={field('url')} />
        <label for="tool-timeout">Timeout (ms)</label>
        <input id="tool-timeout" type="number" min={500} max={30000} step={100} required value={form.timeout} onInput={field('timeout')} />
        <label for="tool-parameters">Parameters (JSON Schema, an object)</label>
        <textarea id="tool-parameters" rows={7} required value={form.parameters} spellcheck={false} onInput={field('parameters')} />
        <button type="submit" class="primary" disabled={create.busy}>
          Declare tool
        </button>
      </form>
      {schemaError ? (
        <p role="alert" class="error">
          {schemaError}
        </p>
      ) : null}
      <ErrorNote error={create.error ?? remove.error} />
      <Listing
        of={{ data: tools.data?.items, error: tools.error }}
        what="tools"
        empty={
          <EmptyState title="No tools yet">
            <p>Declare one above; agents can call it from their next turn.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ul class="cards" aria-label="Tools">
            {rows.map((t) => (
              <li key={t.name} class="card" data-tool={t.name}>
                <strong>
                  <code>{t.name}</code>
                </strong>
                <span class="meta">
                  POST {t.url} · {t.timeout_ms / 1000} s
                </span>
                <span class="vars">{t.description}</span>
                <details class="vars">
                  <summary>Parameters</summary>
                  <pre>{JSON.stringify(t.parameters, null, 2)}</pre>
                </details>
                <button type="button" disabled={remove.busy} onClick={() => setRemoving(t)}>
                  Delete<span class="visually-hidden"> {t.name}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Listing>
      {removing ? (
        <ConfirmDialog
          title={`Delete ${removing.name}?`}
          confirmLabel="Delete tool"
          dismissLabel="Keep it"
          onCancel={() => setRemoving(undefined)}
          onConfirm={() => {
            const tool = removing;
            setRemoving(undefined);
            void remove.run(async () => {
              await deleteTool(ws, tool.name);
              await tools.reload();
            });
          }}
        >
          <p>Agents stop seeing it from their next turn.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
