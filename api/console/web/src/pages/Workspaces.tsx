import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import { ErrorNote, Loading, ShownOnce, When } from '../components/common';
import { useAction, usePoll } from '../hooks';
import { Link } from '../router';

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
      <ErrorNote error={create.error ?? list.error} />
      {!list.data ? (
        <Loading what="workspaces" />
      ) : (
        <table class="stack">
          <caption class="visually-hidden">Workspaces</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id</th>
              <th scope="col">Country</th>
              <th scope="col">Suspended</th>
              <th scope="col">Created</th>
              <th scope="col">Keys</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((w) => (
              <tr key={w.workspace_id}>
                <td data-label="Name">
                  <Link to={`/w/${w.workspace_id}/campaigns`}>{w.name}</Link>
                </td>
                <td data-label="Id">{w.workspace_id}</td>
                <td data-label="Country">{w.country}</td>
                <td data-label="Suspended">{w.suspended ? 'yes' : 'no'}</td>
                <td data-label="Created">
                  <When at={w.created_at} />
                </td>
                <td data-label="Keys">
                  <Link to={`/w/${w.workspace_id}/keys`}>
                    Keys<span class="visually-hidden"> of {w.name}</span>
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
