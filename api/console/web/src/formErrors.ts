/**
 * Where a refused create's message belongs on its form, from the error envelope (api-core §7):
 * a validation failure's `details.errors[].loc`, a refusal's `details.loc` or `details.field`,
 * keyed as the form names its fields (`audience.tags`, `template.variables.1`). No JSX, no
 * DOM: the unit tests (test/unit/console/webFormErrors.test.ts) import it directly.
 */

export interface EnvelopeLike {
  error: { code: string; message: string; details: Record<string, unknown> };
}

export interface FormErrors {
  /** Field path → the message to show beside it. */
  fields: Record<string, string>;
  /** What belongs to no field (or the whole refusal's sentence when it names one). */
  general: string | null;
}

/** Refusals whose field the envelope does not name but the spec's reason does. */
const FIELD_OF_REASON: Record<string, string> = {
  invalid_destination: 'phone',
  duplicate_recipient: 'phone',
};

function pathOf(loc: unknown): string | null {
  if (!Array.isArray(loc)) return null;
  // `body` or `query` first: the form's fields are what follows.
  const rest = loc.slice(loc[0] === 'body' || loc[0] === 'query' ? 1 : 0);
  return rest.length === 0 ? null : rest.map(String).join('.');
}

export function formErrorsOf(envelope: EnvelopeLike | null, fallback: string): FormErrors {
  if (!envelope) return { fields: {}, general: fallback };
  const { message, details } = envelope.error;
  const fields: Record<string, string> = {};
  const errors = details.errors;
  if (Array.isArray(errors)) {
    const loose: string[] = [];
    for (const e of errors as { loc?: unknown; msg?: unknown }[]) {
      const path = pathOf(e.loc);
      const msg = typeof e.msg === 'string' ? e.msg : message;
      if (path === null) loose.push(msg);
      else fields[path] = fields[path] ? `${fields[path]} ${msg}` : msg;
    }
    return { fields, general: loose.length ? loose.join(' ') : Object.keys(fields).length ? 'Some fields need fixing; see the notes beside them.' : message };
  }
  const reason = typeof details.reason === 'string' ? details.reason : undefined;
  const path = pathOf(details.loc) ?? (typeof details.field === 'string' && !details.loc ? details.field : null) ?? (reason ? FIELD_OF_REASON[reason] : undefined) ?? null;
  if (path !== null) fields[path] = message;
  return { fields, general: message };
}

/** The messages under a part of the form (`audience` gives `audience.tags`, `audience.contact_ids.3`, …). */
export function errorsUnder(errors: Record<string, string>, prefix: string): string | undefined {
  const found = Object.entries(errors)
    .filter(([key]) => key === prefix || key.startsWith(`${prefix}.`))
    .map(([, msg]) => msg);
  return found.length ? found.join(' ') : undefined;
}
