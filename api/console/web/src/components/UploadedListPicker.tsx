import { loadLists, type UploadedList } from '../api/lists';
import { usePoll } from '../hooks';
import { Link } from '../router';
import { ErrorNote, Options } from './common';

/**
 * Choose one of the workspace's uploaded lists as a campaign's audience (console only). For
 * the create-campaign form: render it when the audience kind is `uploaded_list`, keep the
 * chosen list, send `audience: { kind: 'uploaded_list', list_id: list.list_id }`, and offer
 * `list.variables` (e.g. `{{name}}`, `{{city}}`) for the template variables and the call's
 * purpose and script. `onChange(null)` when nothing is chosen.
 */
export function UploadedListPicker({
  ws,
  value,
  onChange,
  id = 'uploaded-list',
}: {
  ws: string;
  /** The chosen list's id, or null. */
  value: string | null;
  onChange: (list: UploadedList | null) => void;
  /** The select's id, for a label outside. */
  id?: string;
}) {
  const lists = usePoll(() => loadLists(ws), 0, [ws]);
  const chosen = lists.data?.find((l) => l.list_id === value) ?? null;
  if (lists.data && lists.data.length === 0) {
    return (
      <p class="picker-empty">
        No uploaded lists yet. <Link to={`/w/${ws}/lists`}>Upload a CSV of people</Link>, then choose it here.
      </p>
    );
  }
  return (
    <div class="list-picker">
      <label for={id}>Uploaded list</label>
      <select
        id={id}
        value={value ?? ''}
        disabled={!lists.data}
        onChange={(e) => onChange(lists.data?.find((l) => l.list_id === (e.currentTarget as HTMLSelectElement).value) ?? null)}
      >
        <option value="">{lists.data ? 'Choose a list…' : 'Loading lists…'}</option>
        <Options of={(lists.data ?? []).map((l) => [l.list_id, `${l.name} (${l.rows} ${l.rows === 1 ? 'row' : 'rows'})`])} />
      </select>
      {chosen ? (
        <p class="hint" data-testid="list-variables">
          Variables: <code>{chosen.variables.join(' ')}</code>
        </p>
      ) : null}
      <ErrorNote error={lists.error} />
    </div>
  );
}
