/**
 * Filling a template's placeholders from a send request (api-core §4 POST /messages,
 * template object and rules 3 to 5). Pure: no I/O, so every shape is unit-tested.
 *
 * Body, header and button placeholders are separate namespaces. Counts are checked before
 * shapes, so a request with the wrong number of values always hears both counts.
 */

export type VariableValue = string | number;
export type VariablesInput =
  | VariableValue
  | VariableValue[]
  | Record<string, VariableValue | VariableValue[]>
  | null
  | undefined;

export interface TemplateContent {
  name: string;
  header: { type: 'text'; text: string } | { type: 'image' | 'video'; media_url: string | null } | null;
  body: string;
  buttons: ({ type: 'url'; text: string; url: string } | { type: 'quick_reply'; text: string })[];
}

export interface TemplateVariablesInput {
  variables?: VariablesInput;
  header_variables?: VariablesInput;
  button_variables?: VariablesInput;
}

export type Component = 'body' | 'header' | 'buttons';

/** The values to send, in placeholder order, per component. */
export interface ResolvedVariables {
  header: string[];
  body: string[];
  /** One entry per dynamic URL button, in button order, with its position among all buttons. */
  buttons: { index: number; values: string[] }[];
}

export class TemplateVariablesError extends Error {
  constructor(
    message: string,
    readonly component: Component,
    readonly counts: { expected: number; received: number } | null,
  ) {
    super(message);
    this.name = 'TemplateVariablesError';
  }
}

export const MAX_VARIABLE_LENGTH = 1024;

/** Distinct `{{n}}` placeholder numbers in ascending order. */
export function placeholderNumbers(text: string): number[] {
  const found = new Set<number>();
  for (const match of text.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) found.add(Number(match[1]));
  return [...found].sort((a, b) => a - b);
}

/** Trimmed, inner runs of newlines and tabs folded to one space, cut at 1,024 characters. */
export function normaliseVariable(value: VariableValue): string {
  const folded = String(value).trim().replace(/\s*[\t\r\n]+\s*/g, ' ');
  const chars = Array.from(folded);
  return chars.length > MAX_VARIABLE_LENGTH ? chars.slice(0, MAX_VARIABLE_LENGTH).join('') : folded;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function countError(template: string, component: Component, expected: number, received: number): TemplateVariablesError {
  const what = component === 'buttons' ? 'the URL buttons have' : `the ${component} has`;
  return new TemplateVariablesError(
    `Template ${template}: ${what} ${plural(expected, 'placeholder', 'placeholders')} but ${plural(received, 'variable was', 'variables were')} given.`,
    component,
    { expected, received },
  );
}

function shapeError(template: string, component: Component, rule: string): TemplateVariablesError {
  return new TemplateVariablesError(`Template ${template}: ${rule}`, component, null);
}

const isScalar = (v: unknown): v is VariableValue => typeof v === 'string' || typeof v === 'number';

/** Body or text-header values: positional array, object keyed from 1, or a bare value for exactly one placeholder. */
function resolveNumbered(template: string, component: 'body' | 'header', expected: number, input: VariablesInput): string[] {
  if (input === undefined || input === null) {
    if (expected !== 0) throw countError(template, component, expected, 0);
    return [];
  }
  if (isScalar(input)) {
    if (expected !== 1) throw countError(template, component, expected, 1);
    return [normaliseVariable(input)];
  }
  if (Array.isArray(input)) {
    if (input.length !== expected) throw countError(template, component, expected, input.length);
    if (!input.every(isScalar)) throw shapeError(template, component, `${component} variables must be strings or numbers.`);
    return input.map(normaliseVariable);
  }
  const entries = Object.entries(input);
  if (entries.length !== expected) throw countError(template, component, expected, entries.length);
  const values: string[] = [];
  for (let n = 1; n <= expected; n++) {
    const value = input[String(n)];
    if (value === undefined) {
      throw shapeError(template, component, `${component} variables given as an object must be keyed by placeholder number, 1 to ${expected}.`);
    }
    if (!isScalar(value)) throw shapeError(template, component, `${component} variables must be strings or numbers.`);
    values.push(normaliseVariable(value));
  }
  return values;
}

interface DynamicButton {
  index: number;
  placeholders: number;
}

function dynamicButtons(template: TemplateContent): DynamicButton[] {
  return template.buttons.flatMap((button, index) =>
    button.type === 'url' && placeholderNumbers(button.url).length > 0 ? [{ index, placeholders: placeholderNumbers(button.url).length }] : [],
  );
}

const valueCount = (v: VariableValue | VariableValue[]) => (Array.isArray(v) ? v.length : 1);

/**
 * Dynamic URL buttons: one button takes a bare value or an array; several one-placeholder
 * buttons take an array in button order; any template takes an object keyed by button
 * position counting from 0.
 */
function resolveButtons(template: TemplateContent, input: VariablesInput): ResolvedVariables['buttons'] {
  const name = template.name;
  const dynamic = dynamicButtons(template);
  const expected = dynamic.reduce((sum, b) => sum + b.placeholders, 0);
  if (input === undefined || input === null) {
    if (expected !== 0) throw countError(name, 'buttons', expected, 0);
    return [];
  }
  if (isScalar(input) || Array.isArray(input)) {
    const values = isScalar(input) ? [input] : input;
    if (values.length !== expected) throw countError(name, 'buttons', expected, values.length);
    if (!values.every(isScalar)) throw shapeError(name, 'buttons', 'button variables in an array must be strings or numbers.');
    if (dynamic.length === 1) return [{ index: dynamic[0]!.index, values: values.map(normaliseVariable) }];
    if (dynamic.some((b) => b.placeholders !== 1)) {
      throw shapeError(name, 'buttons', 'button variables for several URL buttons with more than one placeholder must be an object keyed by button position from 0.');
    }
    return dynamic.map((b, i) => ({ index: b.index, values: [normaliseVariable(values[i]!)] }));
  }
  const entries = Object.entries(input);
  const received = entries.reduce((sum, [, v]) => sum + valueCount(v), 0);
  if (received !== expected) throw countError(name, 'buttons', expected, received);
  const positions = dynamic.map((b) => b.index).join(', ');
  const byPosition = new Map(entries);
  if (entries.length !== dynamic.length || dynamic.some((b) => !byPosition.has(String(b.index)))) {
    throw shapeError(name, 'buttons', `button variables given as an object must be keyed by the position of each URL button from 0 (${positions}).`);
  }
  return dynamic.map((b) => {
    const raw = byPosition.get(String(b.index))!;
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.length !== b.placeholders || !values.every(isScalar)) {
      throw shapeError(name, 'buttons', `the URL button at position ${b.index} takes ${plural(b.placeholders, 'value', 'values')}.`);
    }
    return { index: b.index, values: values.map(normaliseVariable) };
  });
}

/** Checks and normalises every component's values; throws TemplateVariablesError on a mismatch. */
export function resolveTemplateVariables(template: TemplateContent, input: TemplateVariablesInput): ResolvedVariables {
  const headerPlaceholders = template.header?.type === 'text' ? placeholderNumbers(template.header.text).length : 0;
  return {
    body: resolveNumbered(template.name, 'body', placeholderNumbers(template.body).length, input.variables),
    header: resolveNumbered(template.name, 'header', headerPlaceholders, input.header_variables),
    buttons: resolveButtons(template, input.button_variables),
  };
}

function fill(text: string, values: string[]): string {
  const numbers = placeholderNumbers(text);
  return text.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => {
    const at = numbers.indexOf(Number(n));
    return at >= 0 && values[at] !== undefined ? values[at]! : whole;
  });
}

/** The text a customer reads, for the transcript: a text header on its own line, then the body. */
export function renderTemplateText(template: TemplateContent, values: ResolvedVariables): string {
  const body = fill(template.body, values.body);
  return template.header?.type === 'text' ? `${fill(template.header.text, values.header)}\n${body}` : body;
}
