import type { JSX } from 'preact';
import { errorsUnder } from '../formErrors';
import { described, Field } from './forms';
import { UploadedListPicker } from './UploadedListPicker';

/**
 * Who a campaign reaches. Each kind is one entry of AUDIENCE_KINDS (its label, what it means,
 * its editor and the request it sends), so another kind is one more entry and one more member
 * of `Audience`; the picker and the form need no change.
 */
export type Audience = { kind: 'contact_ids'; contact_ids: string } | { kind: 'segment'; tags: string } | { kind: 'uploaded_list'; list_id: string | null };

export interface AudienceKind<A extends Audience = Audience> {
  kind: A['kind'];
  label: string;
  /** One sentence under the choice: what the kind reaches. */
  meaning: string;
  initial(): A;
  /** The request's `audience`. */
  request(value: A): Record<string, unknown>;
  /** A component, so a property holding a function rather than a method. */
  Editor: (props: { ws: string; value: A; onChange: (value: A) => void; error: string | undefined }) => JSX.Element;
}

/** `a, b` or one a line: the items, blanks dropped. */
export const listOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A kind whose value is a list typed in one field (ids, tags), sent as its items under the same name. */
function typedListKind<A extends Extract<Audience, { kind: 'contact_ids' | 'segment' }>>({
  kind,
  field,
  label,
  meaning,
  input,
}: {
  kind: A['kind'];
  field: Exclude<keyof A, 'kind'> & string;
  label: string;
  meaning: string;
  input: { id: string; label: string; hint: string; multiline?: boolean };
}): AudienceKind<A> {
  return {
    kind,
    label,
    meaning,
    initial: () => ({ kind, [field]: '' }) as A,
    request: (value) => ({ kind, [field]: listOf(value[field] as string) }),
    Editor: ({ value, onChange, error }) => {
      const control = {
        ...described(input.id, error, 'hint'),
        value: value[field] as string,
        onInput: (e: Event) => onChange({ ...value, [field]: (e.currentTarget as HTMLInputElement | HTMLTextAreaElement).value }),
      };
      return (
        <Field id={input.id} label={input.label} hint={input.hint} error={error}>
          {input.multiline ? <textarea {...control} /> : <input {...control} />}
        </Field>
      );
    },
  };
}

const contactIds = typedListKind<Extract<Audience, { kind: 'contact_ids' }>>({
  kind: 'contact_ids',
  field: 'contact_ids',
  label: 'Chosen contacts',
  meaning: 'These contacts, by id (cnt_…); ids of other workspaces are dropped.',
  input: { id: 'audience-contact-ids', label: 'Contact ids', hint: 'One a line, or separated by commas.', multiline: true },
});

const segment = typedListKind<Extract<Audience, { kind: 'segment' }>>({
  kind: 'segment',
  field: 'tags',
  label: 'Segment (tags)',
  meaning: 'Every contact with all of these tags, looked up when you evaluate and again at launch.',
  input: { id: 'audience-tags', label: 'Tags', hint: 'Separated by commas, e.g. vip, mumbai. A contact needs every tag.' },
});

const uploadedList: AudienceKind<Extract<Audience, { kind: 'uploaded_list' }>> = {
  kind: 'uploaded_list',
  label: 'Uploaded list',
  meaning: 'Everyone in a CSV file uploaded on the Lists page (console only); its columns are the {{variables}}, and bad rows are reported by row number when you evaluate.',
  initial: () => ({ kind: 'uploaded_list', list_id: null }),
  request: (value) => ({ kind: 'uploaded_list', list_id: value.list_id }),
  Editor: ({ ws, value, onChange, error }) => (
    // The picker labels its own select; the field only adds the server's refusal under it.
    <div class={`field${error ? ' has-error' : ''}`}>
      <UploadedListPicker ws={ws} id="audience-list" value={value.list_id} onChange={(list) => onChange({ ...value, list_id: list?.list_id ?? null })} />
      {error ? (
        <p class="field-error" id="audience-list-error">
          {error}
        </p>
      ) : null}
    </div>
  ),
};

export const AUDIENCE_KINDS: readonly AudienceKind[] = [contactIds, segment, uploadedList] as unknown as readonly AudienceKind[];

function kindOf(kind: Audience['kind']): AudienceKind {
  return AUDIENCE_KINDS.find((k) => k.kind === kind)!;
}

/** The request's `audience` for the chosen kind. */
export function audienceRequest(value: Audience): Record<string, unknown> {
  return kindOf(value.kind).request(value);
}

/** The audience part of a campaign form: the kinds as radio buttons, the chosen one's editor under them. Errors at `audience…` show in the editor. */
export function AudiencePicker({ ws, value, onChange, errors }: { ws: string; value: Audience; onChange: (value: Audience) => void; errors: Record<string, string> }) {
  const chosen = kindOf(value.kind);
  const Editor = chosen.Editor;
  return (
    <fieldset>
      <legend>Audience</legend>
      <div class="choices">
        {AUDIENCE_KINDS.map((k) => (
          <label key={k.kind}>
            <input type="radio" name="audience-kind" value={k.kind} checked={value.kind === k.kind} onChange={() => onChange(k.initial())} /> {k.label}
          </label>
        ))}
      </div>
      <p class="hint">{chosen.meaning} Opted-out people, duplicates and unusable numbers are left out before the count.</p>
      <Editor ws={ws} value={value} onChange={onChange} error={errorsUnder(errors, 'audience')} />
    </fieldset>
  );
}
