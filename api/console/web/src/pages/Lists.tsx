import { useState } from 'preact/hooks';
import { loadList, loadLists, uploadList, type UploadedListDetail } from '../api/lists';
import { ErrorNote, Listing, Loading, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { useAction, usePoll } from '../hooks';
import { Link, navigate } from '../router';

/** A file's name without its extension: the list's name unless the operator types one. */
const baseName = (file: string) => file.replace(/\.[^.]*$/, '');

/**
 * Uploaded lists: upload a CSV of people (phone, name, any other columns) to use as a
 * campaign's audience, and the lists already uploaded. A refused file says why and where.
 */
export function ListsPage({ ws }: { ws: string }) {
  const lists = usePoll(() => loadLists(ws), 0, [ws]);
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [phoneColumn, setPhoneColumn] = useState('');
  const action = useAction();
  return (
    <>
      <p class="crumbs">
        <Link to={`/w/${ws}/campaigns`}>Campaigns</Link> › Uploaded lists
      </p>
      <h1>Uploaded lists</h1>
      <p>
        A list is a CSV file of people to reach in a campaign, made in a spreadsheet: a header row, then one row per person. Its columns become the campaign’s
        variables: a column <code>City</code> is <code>{'{{city}}'}</code> in the template’s variables or the call’s purpose and script. The numbers go in a column
        named <code>phone</code> (or name another column below), with the country code or as local numbers of the workspace’s country. Save it as “CSV UTF-8”.
      </p>
      <form
        class="upload"
        aria-label="Upload a list"
        onSubmit={(e) => {
          e.preventDefault();
          if (!file) return;
          void action.run(async () => {
            const made = await uploadList(ws, file, { name: name.trim() || baseName(file.name), phoneColumn });
            await lists.reload();
            navigate(`/w/${ws}/lists/${made.list_id}`);
          });
        }}
      >
        <label for="list-file">CSV file</label>
        <input
          id="list-file"
          type="file"
          accept=".csv,text/csv"
          required
          onChange={(e) => {
            const chosen = (e.currentTarget as HTMLInputElement).files?.[0] ?? null;
            setFile(chosen);
            if (chosen && !name) setName(baseName(chosen.name));
          }}
        />
        <label for="list-name">Name</label>
        <input id="list-name" value={name} maxLength={140} placeholder="March renewals" onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        <label for="list-phone-column">Phone column (if not “phone”)</label>
        <input id="list-phone-column" value={phoneColumn} placeholder="phone" size={12} onInput={(e) => setPhoneColumn((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" class="primary" disabled={!file || action.busy}>
          {action.busy ? 'Uploading…' : 'Upload list'}
        </button>
      </form>
      <UploadRefusal error={action.error} />
      <Listing of={lists} what="lists" empty={<p>No lists yet. Upload one above; then create a campaign with “Uploaded list” as its audience.</p>}>
        {(rows) => (
          <ul class="cards" aria-label="Lists">
            {rows.map((l) => (
              <li key={l.list_id} class="card" data-list={l.list_id}>
                <Link to={`/w/${ws}/lists/${l.list_id}`}>{l.name}</Link>
                <span class="meta">
                  {l.rows} {l.rows === 1 ? 'row' : 'rows'} · uploaded <When at={l.created_at} />
                </span>
                <span class="vars">
                  <code>{l.variables.join(' ')}</code>
                </span>
              </li>
            ))}
          </ul>
        )}
      </Listing>
    </>
  );
}

/** A refused upload: the server's message names the row and column; say so plainly. */
function UploadRefusal({ error }: { error: Error | undefined }) {
  if (!error) return null;
  return (
    <div role="alert" class="error upload-refused">
      <p>The file was not uploaded: {error.message}</p>
      <p>Fix the file and upload it again; nothing was kept.</p>
    </div>
  );
}

/** One list: its columns and the variables they give, and its first rows as stored. */
export function ListPage({ ws, id }: { ws: string; id: string }) {
  const list = usePoll(() => loadList(ws, id), 0, [ws, id]);
  const l = list.data;
  return (
    <>
      <p class="crumbs">
        <Link to={`/w/${ws}/campaigns`}>Campaigns</Link> › <Link to={`/w/${ws}/lists`}>Uploaded lists</Link>
      </p>
      <ErrorNote error={list.error} />
      {!l ? <Loading what="the list" /> : <ListView list={l} />}
    </>
  );
}

type PreviewRow = UploadedListDetail['preview'][number];

function ListView({ list: l }: { list: UploadedListDetail }) {
  return (
    <>
      <h1>{l.name}</h1>
      <dl class="facts">
        <dt>Rows</dt>
        <dd data-testid="list-rows">{l.rows}</dd>
        <dt>Phone column</dt>
        <dd>{l.columns.find((c) => c.name === l.phone_column)?.header ?? l.phone_column}</dd>
        <dt>File</dt>
        <dd>{l.file_name ?? '—'}</dd>
        <dt>Uploaded</dt>
        <dd>
          <When at={l.created_at} />
        </dd>
      </dl>
      <h2>Variables</h2>
      <p>
        Use these in a campaign on this list: in the template’s variables, and in a call’s purpose and script (where <code>{'{{all}}'}</code> is every column).
      </p>
      <ul class="variables">
        {l.columns.map((c) => (
          <li key={c.name}>
            <code>{`{{${c.name}}}`}</code> <span class="meta">from “{c.header}”</span>
          </li>
        ))}
      </ul>
      <h2>First rows</h2>
      <p class="meta">
        As uploaded. Whether each person can be reached (a usable number, not opted out, not listed twice) is checked when a campaign on this list is evaluated,
        which names each row left out and why.
      </p>
      <div class="scroll-x" tabIndex={0} role="region" aria-label="First rows">
        <DataTable
          caption={`The first ${l.preview.length} rows`}
          columns={[
            { label: 'Row', num: true, cell: (r) => r.row },
            ...l.columns.map(
              (c): Column<PreviewRow> => ({ label: c.header, cell: (r) => r.values[c.name] || <span class="meta">—</span>, cellProps: (r) => ({ title: r.values[c.name] || undefined }) }),
            ),
          ]}
          rows={l.preview}
          rowKey={(r) => r.row}
        />
      </div>
    </>
  );
}
