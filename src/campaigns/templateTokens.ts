import { normaliseVariable } from '../messaging';

/**
 * A broadcast's template variables (campaigns-tickets-dues §4 `template.variables`): each a
 * literal, or text carrying `{{contact.name}}`, `{{contact.phone}}` or `{{contact.email}}`
 * tokens filled per recipient. Pure, so every rule is unit-tested.
 *
 * Anything in double braces is read as a token: an unknown one is refused at create
 * (`unknown_variable` with its `field`), so a typo never reaches a customer as literal text.
 */

export const CONTACT_FIELDS = ['name', 'phone', 'email'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

const TOKEN = /\{\{\s*([^{}]*?)\s*\}\}/g;

export type TokenCheck = { ok: true } | { ok: false; field: string; index: number };

/** What a broadcast's template variables may name. */
export const BROADCAST_TOKENS: readonly string[] = CONTACT_FIELDS.map((f) => `contact.${f}`);
/** What a call campaign's `purpose` and `script` may name (issue 15): short and `contact.` forms, and `all`. */
export const CALL_TOKENS: readonly string[] = [...CONTACT_FIELDS, ...BROADCAST_TOKENS, 'all'];

/** The first token in the texts that is not among `allowed`, with the text's position. */
export function checkTokens(texts: readonly string[], allowed: readonly string[]): TokenCheck {
  for (const [index, value] of texts.entries()) {
    for (const match of value.matchAll(TOKEN)) {
      if (!allowed.includes(match[1]!)) return { ok: false, field: match[1]!, index };
    }
  }
  return { ok: true };
}

export interface ContactValues {
  name: string | null;
  phone: string | null;
  email: string | null;
}

export type Rendered = { ok: true; values: string[] } | { ok: false; field: `contact.${ContactField}` };

/**
 * One recipient's values in placeholder order, normalised as POST /messages normalises
 * them. A token whose contact field is empty gives the field instead: no message with a gap
 * is sent. Tokens must have passed `checkTokens(…, BROADCAST_TOKENS)`.
 */
export function renderVariables(variables: readonly string[], contact: ContactValues): Rendered {
  const values: string[] = [];
  for (const value of variables) {
    let missing: ContactField | null = null;
    const filled = value.replace(TOKEN, (_whole, name: string) => {
      const field = name.slice('contact.'.length) as ContactField;
      const got = contact[field]?.trim();
      if (!got) missing ??= field;
      return got ?? '';
    });
    if (missing !== null) return { ok: false, field: `contact.${missing as ContactField}` };
    values.push(normaliseVariable(filled));
  }
  return { ok: true, values };
}

/** Sample form (evaluate): values keyed by placeholder number, counting from 1. */
export function byPlaceholderNumber(values: readonly string[]): Record<string, string> {
  return Object.fromEntries(values.map((value, i) => [String(i + 1), value]));
}

/** The contact field a call token names: `name` and `contact.name` alike; null for `all`. */
function callTokenField(token: string): ContactField | null {
  const field = token.startsWith('contact.') ? token.slice('contact.'.length) : token;
  return field === 'all' ? null : (field as ContactField);
}

const ALL_LABELS: Record<ContactField, string> = { name: 'Name', phone: 'Phone', email: 'Email' };

/**
 * `{{all}}`: every detail the contact has, one `Label: value` per line, so the agent hears
 * whatever is known. It never leaves a gap (an absent detail is left out), so it is never a
 * `missing_variable`.
 */
export function allDetails(contact: ContactValues): string {
  return CONTACT_FIELDS.filter((f) => contact[f]?.trim())
    .map((f) => `${ALL_LABELS[f]}: ${contact[f]!.trim()}`)
    .join('\n');
}

export type RenderedText = { ok: true; text: string } | { ok: false; field: `contact.${ContactField}` };

/**
 * A call campaign's `purpose` or `script` for one person (issue 15): `{{name}}`, `{{phone}}`,
 * `{{email}}` and their `{{contact.*}}` forms filled in, `{{all}}` as `allDetails`. The text
 * is otherwise kept as written (line breaks matter in a script). A token whose field is empty
 * gives the field instead, as template variables do: no call opens with a gap. Tokens must
 * have passed `checkTokens(…, CALL_TOKENS)`.
 */
export function renderCallText(text: string, contact: ContactValues): RenderedText {
  // Set inside the replacer, so held in an object the type checker does not narrow.
  const gap: { field: ContactField | null } = { field: null };
  const filled = text.replace(TOKEN, (_whole, token: string) => {
    const field = callTokenField(token);
    if (field === null) return allDetails(contact);
    const got = contact[field]?.trim();
    if (!got) gap.field ??= field;
    return got ?? '';
  });
  return gap.field ? { ok: false, field: `contact.${gap.field}` } : { ok: true, text: filled };
}

/**
 * An uploaded list's person (console-only audience, docs/campaigns.md "Uploaded lists"): each
 * column is a variable by its normalised name, `{{city}}` in a template variable and in a
 * call's purpose or script alike; `{{all}}` in a call's texts. The phone column's value is
 * the number as it will be dialled or messaged (E.164).
 */
export interface ListPerson {
  /** Column name → the row's cell. */
  values: Readonly<Record<string, string>>;
  /** Header as written, and column name, in the file's order (for `{{all}}`). */
  labels: readonly (readonly [label: string, column: string])[];
}

/** What a campaign on the list may name: its columns; a call's texts also `{{all}}`. */
export const listBroadcastTokens = (columns: readonly string[]): readonly string[] => columns;
export const listCallTokens = (columns: readonly string[]): readonly string[] => [...columns, 'all'];

export type RenderedFromList = { ok: true; values: string[] } | { ok: false; field: string };

/** `renderVariables` for a list's person: a token whose cell is empty gives its column instead. */
export function renderListVariables(variables: readonly string[], person: ListPerson): RenderedFromList {
  const values: string[] = [];
  for (const value of variables) {
    let missing: string | null = null;
    const filled = value.replace(TOKEN, (_whole, column: string) => {
      const got = person.values[column]?.trim();
      if (!got) missing ??= column;
      return got ?? '';
    });
    if (missing !== null) return { ok: false, field: missing };
    values.push(normaliseVariable(filled));
  }
  return { ok: true, values };
}

/** `{{all}}` for a list's person: `Header: value` per non-empty cell, in the file's order. */
export function allListDetails(person: ListPerson): string {
  return person.labels
    .filter(([, column]) => person.values[column]?.trim())
    .map(([label, column]) => `${label}: ${person.values[column]!.trim()}`)
    .join('\n');
}

/** `renderCallText` for a list's person: text kept as written, a token with an empty cell gives its column instead. */
export function renderListCallText(text: string, person: ListPerson): { ok: true; text: string } | { ok: false; field: string } {
  const gap: { field: string | null } = { field: null };
  const filled = text.replace(TOKEN, (_whole, token: string) => {
    if (token === 'all') return allListDetails(person);
    const got = person.values[token]?.trim();
    if (!got) gap.field ??= token;
    return got ?? '';
  });
  return gap.field ? { ok: false, field: gap.field } : { ok: true, text: filled };
}
