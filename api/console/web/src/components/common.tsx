import { formatInZone, useWorkspaceZone } from '../clock';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../api/client';
import type { Action } from '../hooks';

export function ErrorNote({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const reason = error instanceof ApiFailure ? error.reason : undefined;
  // A validation failure names each field it refused and why: shown, so a form can be put right.
  const fields = error instanceof ApiFailure ? (error.envelope?.error.details.errors as { loc: (string | number)[]; msg: string }[] | undefined) : undefined;
  return (
    <div class="error" role="alert">
      <p>
        {error.message}
        {reason ? <span class="reason"> ({reason})</span> : null}
      </p>
      {fields?.length ? (
        <ul>
          {fields.map((f, i) => (
            <li key={i}>
              {f.loc.filter((part) => part !== 'body').join('.') || 'body'}: {f.msg}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-live="polite">Loading {what}…</p>;
}

/**
 * A loaded list as a page shows it: the error note (an action's on the list, such as create,
 * when it failed, else the load's), then "Loading…" until the first answer (nothing when that
 * failed), `empty` (when given) if the list holds nothing, else its items.
 */
export function Listing<T>({
  of,
  what,
  failed,
  empty,
  children,
}: {
  of: { data: T[] | undefined; error: Error | undefined };
  what: string;
  failed?: Error | undefined;
  empty?: ComponentChildren;
  children: (items: T[]) => ComponentChildren;
}) {
  return (
    <>
      <ErrorNote error={failed ?? of.error} />
      {!of.data ? (of.error ? null : <Loading what={what} />) : of.data.length === 0 && empty !== undefined ? empty : children(of.data)}
    </>
  );
}

/** A select's choices, each `[value, text]`. */
export function Options({ of }: { of: readonly (readonly [string, string])[] }) {
  return (
    <>
      {of.map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </>
  );
}

/** A button that runs `run` as `action` (one at a time: disabled while any of its runs is busy). */
export function ActionButton({ action, run, children }: { action: Action; run: () => Promise<unknown>; children: ComponentChildren }) {
  return (
    <button type="button" disabled={action.busy} onClick={() => void action.run(run)}>
      {children}
    </button>
  );
}

/**
 * A secret the server shows once (a new API key, a webhook signing secret): displayed in a
 * selectable field with a Copy button until dismissed, then gone from the page's memory.
 */
export function ShownOnce({ label, value, onDismiss }: { label: string; value: string; onDismiss: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no'>();
  const copy = async () => {
    setCopied(undefined);
    setCopied((await copyText(value, field.current)) ? 'yes' : 'no');
  };
  return (
    <section class="shown-once" aria-label={label}>
      <h3>{label}</h3>
      <p>Copy it now: it is shown this once and cannot be read again.</p>
      <input ref={field} class="secret" readOnly value={value} aria-label={label} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
      <div class="controls">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy<span class="visually-hidden"> {label}</span>
        </button>
        <button type="button" onClick={onDismiss}>
          I have copied it
        </button>
        <span role="status">{copied === 'yes' ? 'Copied.' : copied === 'no' ? 'The browser would not copy it: select the text and copy it yourself.' : ''}</span>
      </div>
    </section>
  );
}

/**
 * Puts `text` on the clipboard: the Clipboard API where the page is a secure context (https,
 * or http on 127.0.0.1), else the browser's copy command on the selected field.
 */
async function copyText(text: string, field: HTMLInputElement | null): Promise<boolean> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no permission, page not focused): try the copy command below.
    }
  }
  if (!field) return false;
  field.focus();
  field.select();
  // oxlint-disable-next-line typescript/no-deprecated -- the one way to copy outside a secure context
  return document.execCommand('copy');
}

/** A moment in the workspace's zone (the page names the zone once; clock.ts). */
export function When({ at }: { at: string | null | undefined }) {
  const zone = useWorkspaceZone();
  if (!at) return <span>—</span>;
  return (
    <time dateTime={at} title={`${at} (UTC)`}>
      {formatInZone(at, zone)}
    </time>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/**
 * A yes/no question asked in the page rather than by window.confirm: the browser's modal
 * <dialog> (showModal), so focus moves into it, the rest of the page is inert until it is
 * answered, and Escape cancels. Rendered only while the question stands.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  dismissLabel = 'Cancel',
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** The button that drops the question (where "Cancel" would read as the action itself, say). */
  dismissLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      onCancel={(e) => {
        // Escape: let the owner drop the dialog rather than the browser closing it behind Preact's back.
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <div id="confirm-body">{children}</div>
      <div class="controls">
        <button type="button" class="primary" onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" onClick={onCancel} autoFocus>
          {dismissLabel}
        </button>
      </div>
    </dialog>
  );
}
