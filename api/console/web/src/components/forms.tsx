import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../api/client';
import { Options } from './common';
import { formErrorsOf, type FormErrors } from '../formErrors';
import { useAction } from '../hooks';
import { Link } from '../router';
import '../forms.css';

/** A refused submit as the form shows it: each message beside its field, the rest above the buttons. */
export function formErrorsOfFailure(error: Error | undefined): FormErrors {
  if (!error) return { fields: {}, general: null };
  return formErrorsOf(error instanceof ApiFailure ? error.envelope : null, error.message);
}

/**
 * A create form's submit and its refusal: `onSubmit(action)` is the form's handler (the page
 * stays, the action runs once at a time), each field's message is `err('template.name')`, the
 * rest `errors.general`.
 */
export function useFormSubmit() {
  const submit = useAction();
  const errors = formErrorsOfFailure(submit.error);
  const onSubmit = (action: () => Promise<unknown>) => (e: Event) => {
    e.preventDefault();
    void submit.run(action);
  };
  return { submit, onSubmit, errors, err: (key: string) => errors.fields[key] };
}

/** What a field's control carries so its note is read with it. */
export function described(id: string, error: string | undefined, hint?: string) {
  const ids = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return { id, 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': ids || undefined };
}

/**
 * One labelled field: its control (given `described(id, …)`), a hint, and the server's
 * message for it when a submit was refused.
 */
export function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: string; error?: string; children: ComponentChildren }) {
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A list's filter: a labelled choice of `[value, label]` options, with "Any" (the empty value) first. */
export function FilterSelect({ id, label, value, options, onChange }: { id: string; label: string; value: string; options: [string, string][]; onChange: (value: string) => void }) {
  return (
    <Field id={id} label={label}>
      <select id={id} value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">Any</option>
        <Options of={options} />
      </select>
    </Field>
  );
}

/** The note above a refused form's buttons (announced), from the envelope's message. */
export function FormProblem({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** A create form's foot: the refusal no field owns, the submit, and the way back. */
export function FormFoot({ problem, busy, submit, cancelTo }: { problem: string | null; busy: boolean; submit: string; cancelTo: string }) {
  return (
    <>
      <FormProblem message={problem} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {submit}
        </button>
        <Link to={cancelTo}>Cancel</Link>
      </div>
    </>
  );
}

/** A list page's title with the button that creates one more of what it lists. */
export function PageHead({ title, createTo, create }: { title: string; createTo: string; create: string }) {
  return (
    <div class="page-head">
      <h1>{title}</h1>
      <Link to={createTo} class="button">
        {create}
      </Link>
    </div>
  );
}

/**
 * What an empty page is for and how to start: one sentence, then the button (or the command)
 * that starts it.
 */
export function EmptyState({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="empty-state" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
