import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../api/client';

export function ErrorNote({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const reason = error instanceof ApiFailure ? error.reason : undefined;
  return (
    <p class="error" role="alert">
      {error.message}
      {reason ? <span class="reason"> ({reason})</span> : null}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-live="polite">Loading {what}…</p>;
}

/**
 * A secret the server shows once (a new API key, a webhook signing secret): displayed in a
 * selectable field until dismissed, then gone from the page's memory.
 */
export function ShownOnce({ label, value, onDismiss }: { label: string; value: string; onDismiss: () => void }) {
  return (
    <section class="shown-once" aria-label={label}>
      <h3>{label}</h3>
      <p>Copy it now: it is shown this once and cannot be read again.</p>
      <input class="secret" readOnly value={value} aria-label={label} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
      <button type="button" onClick={onDismiss}>
        I have copied it
      </button>
    </section>
  );
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
