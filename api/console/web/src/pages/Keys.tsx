import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { ApiKey } from '../api/types';
import { ActionButton, ConfirmDialog, Listing, ShownOnce, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState } from '../components/forms';
import { useAction, usePoll } from '../hooks';

/**
 * The scopes a key can hold, read from the console's own OpenAPI document (the createKey
 * body's enum), so this page never keeps a second copy of the list.
 */
async function loadScopes(): Promise<string[]> {
  const doc = (await unwrap(api.GET('/console/v1/openapi.json'))) as unknown as {
    paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: { properties?: { scopes?: { items?: { enum?: string[] } } } } }> } } }>;
  };
  return doc.paths['/console/v1/workspaces/{workspace_id}/keys']?.post?.requestBody?.content['application/json']?.schema.properties?.scopes?.items?.enum ?? [];
}

type Environment = 'test' | 'live';

/** A workspace's API keys: create one named, with scopes, roll (24 h grace), revoke; a new key is shown once. */
export function KeysPage({ ws }: { ws: string }) {
  const path = { workspace_id: ws };
  const keys = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/keys', { params: { path } }))).items, 15_000, [ws]);
  const scopes = usePoll(loadScopes, 0, []);
  /** The deployment accepts keys of one environment only; a key of the other could never be used here. */
  const served = usePoll(async () => (await unwrap(api.GET('/console/v1/deployment'))).environment, 0, []);
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [environment, setEnvironment] = useState<Environment>();
  const [issued, setIssued] = useState<{ name: string | null; key: string }>();
  /** The key waiting for the person's yes before it is revoked. */
  const [revokeAsk, setRevokeAsk] = useState<{ key_id: string; display_prefix: string }>();
  const action = useAction();
  /** Shows the key a request issued (a new key, a rolled one) and reloads the list. */
  const issue = (call: () => Promise<unknown>) => async () => {
    const made = (await call()) as { api_key: string; name: string | null };
    setIssued({ name: made.name, key: made.api_key });
    await keys.reload();
  };
  const columns: Column<ApiKey>[] = [
    { label: 'Name', cell: (k) => k.name ?? <span class="muted">(no name)</span> },
    { label: 'Key', cell: (k) => <code>{k.display_prefix}…</code> },
    { label: 'Environment', cell: (k) => k.environment },
    { label: 'Scopes', cell: (k) => k.scopes.join(', ') },
    { label: 'Last used', cell: (k) => (k.last_used_at ? <When at={k.last_used_at} /> : 'Never') },
    { label: 'Created', cell: (k) => <When at={k.created_at} /> },
    { label: 'Expires', cell: (k) => <When at={k.expires_at} /> },
    { label: 'Revoked', cell: (k) => <When at={k.revoked_at} /> },
    {
      label: 'Actions',
      cell: (k) => (
        <>
          {!k.revoked_at && !k.expires_at ? (
            <>
              <ActionButton action={action} run={issue(() => unwrap(api.POST('/console/v1/workspaces/{workspace_id}/keys/{key_id}/roll', { params: { path: { ...path, key_id: k.key_id } } })))}>
                Roll<span class="visually-hidden"> {k.display_prefix}</span>
              </ActionButton>{' '}
            </>
          ) : null}
          {!k.revoked_at ? (
            <button type="button" disabled={action.busy} onClick={() => setRevokeAsk(k)}>
              Revoke<span class="visually-hidden"> {k.display_prefix}</span>
            </button>
          ) : null}
        </>
      ),
    },
  ];
  return (
    <>
      <h1>API keys</h1>
      {issued ? <ShownOnce label={issued.name ? `New API key “${issued.name}”` : 'New API key'} value={issued.key} onDismiss={() => setIssued(undefined)} /> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const body = { name, scopes: [...chosen] as never, environment: environment ?? served.data };
          void action.run(
            issue(async () => {
              const made = await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/keys', { params: { path }, body }));
              setName('');
              setChosen(new Set());
              return made;
            }),
          );
        }}
      >
        <label for="key-name">Name of a new key</label>
        <input id="key-name" placeholder="e.g. Billing system" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        <fieldset>
          <legend>Scopes of a new key</legend>
          {(scopes.data ?? []).map((s) => (
            <label key={s} class="scope">
              <input
                type="checkbox"
                checked={chosen.has(s)}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if ((e.currentTarget as HTMLInputElement).checked) next.add(s);
                  else next.delete(s);
                  setChosen(next);
                }}
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
        <label for="key-environment">Environment</label>
        <select id="key-environment" value={environment ?? served.data} onChange={(e) => setEnvironment((e.currentTarget as HTMLSelectElement).value as Environment)}>
          {(['test', 'live'] as const).map((env) => (
            <option key={env} value={env} disabled={served.data !== undefined && env !== served.data}>
              {served.data !== undefined && env !== served.data ? `${env} (this deployment accepts ${served.data} keys only)` : env}
            </option>
          ))}
        </select>
        <button type="submit" disabled={action.busy}>
          Create key
        </button>
      </form>
      <Listing
        of={keys}
        what="keys"
        failed={action.error}
        empty={
          <EmptyState title="No API keys yet">
            <p>
              An API key lets your own systems use this workspace (<code>/api/v1</code>): place calls, send messages, create campaigns and tickets. Give each key only the
              scopes it needs; a test key works with the simulators, a live key with real providers.
            </p>
            <p>Name it, choose its scopes above and press Create key: the key is shown once, so copy it then.</p>
          </EmptyState>
        }
      >
        {(rows) => <DataTable caption="API keys" columns={columns} rows={rows} rowKey={(k) => k.key_id} />}
      </Listing>
      {revokeAsk ? (
        <ConfirmDialog
          title={`Revoke ${revokeAsk.display_prefix}… for good?`}
          confirmLabel="Revoke key"
          dismissLabel="Keep it"
          onCancel={() => setRevokeAsk(undefined)}
          onConfirm={() => {
            const keyId = revokeAsk.key_id;
            setRevokeAsk(undefined);
            void action.run(async () => {
              await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/keys/{key_id}/revoke', { params: { path: { ...path, key_id: keyId } } }));
              await keys.reload();
            });
          }}
        >
          <p>Requests with this key are refused from now on, and a revoked key cannot be restored: the systems using it need a new key.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
