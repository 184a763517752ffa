import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { Listing, ShownOnce, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { useAction, usePoll } from '../hooks';
import { Link } from '../router';

const COLUMNS: Column<Item<'listWorkspaces'>>[] = [
  { label: 'Name', cell: (w) => <Link to={`/w/${w.workspace_id}/campaigns`}>{w.name}</Link> },
  { label: 'Id', cell: (w) => w.workspace_id },
  { label: 'Country', cell: (w) => w.country },
  { label: 'Suspended', cell: (w) => (w.suspended ? 'yes' : 'no') },
  { label: 'Created', cell: (w) => <When at={w.created_at} /> },
  {
    label: 'Keys',
    cell: (w) => (
      <Link to={`/w/${w.workspace_id}/keys`}>
        Keys<span class="visually-hidden"> of {w.name}</span>
      </Link>
    ),
  },
];

export function WorkspacesPage({ onChanged }: { onChanged: () => void }) {
  const list = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces'))).items, 15_000, []);
  const [name, setName] = useState('');
  const [demo, setDemo] = useState(false);
  const [key, setKey] = useState<string>();
  const create = useAction();
  return (
    <>
      <h1>Workspaces</h1>
      {key ? <ShownOnce label="API key of the new demo workspace" value={key} onDismiss={() => setKey(undefined)} /> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(async () => {
            const made = (await unwrap(api.POST('/console/v1/workspaces', { body: { name, demo } }))) as { api_key?: string };
            if (made.api_key) setKey(made.api_key);
            setName('');
            await list.reload();
            onChanged();
          });
        }}
      >
        <label for="workspace-name">New workspace name</label>
        <input id="workspace-name" required maxLength={140} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        <label>
          <input type="checkbox" checked={demo} onChange={(e) => setDemo((e.currentTarget as HTMLInputElement).checked)} /> Seed as a demo workspace (with a full-scope key)
        </label>
        <button type="submit" disabled={create.busy}>
          Create workspace
        </button>
      </form>
      <Listing of={list} what="workspaces" failed={create.error}>
        {(rows) => <DataTable caption="Workspaces" columns={COLUMNS} rows={rows} rowKey={(w) => w.workspace_id} />}
      </Listing>
    </>
  );
}
