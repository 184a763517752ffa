import type { ToolParameters } from '../agents';
import { BUSINESS_TOOL_LIMITS as L } from './limits';

/**
 * A tool's parameters: a JSON Schema the model is shown and the arguments are checked against
 * before any request leaves (docs/agents.md "Business tools"). The declaration must be an
 * object schema, as every model API requires of a function's parameters. The check of the
 * arguments covers what a model gets wrong in practice (a missing required field, a wrong
 * type, a value outside an enum, a field the schema does not have when it says
 * `additionalProperties: false`); deeper keywords are the tool's own to enforce.
 */

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Null when the schema can be used; otherwise what is wrong with it, in a sentence. */
export function schemaProblem(schema: unknown): string | null {
  if (!isRecord(schema)) return 'parameters must be a JSON Schema object.';
  if (schema.type !== 'object') return 'parameters must be an object schema ("type": "object").';
  if (Buffer.byteLength(JSON.stringify(schema)) > L.parametersMaxBytes) return `parameters may have at most ${L.parametersMaxBytes} bytes of JSON.`;
  const properties = schema.properties ?? {};
  if (!isRecord(properties)) return 'parameters.properties must be an object.';
  for (const [name, property] of Object.entries(properties)) {
    if (!isRecord(property)) return `parameters.properties.${name} must be a schema object.`;
    const types = property.type === undefined ? [] : Array.isArray(property.type) ? property.type : [property.type];
    const unknownType = types.find((t) => typeof t !== 'string' || !JSON_TYPES.has(t));
    if (unknownType !== undefined) return `parameters.properties.${name}.type ${JSON.stringify(unknownType)} is not a JSON Schema type.`;
    if (property.enum !== undefined && !Array.isArray(property.enum)) return `parameters.properties.${name}.enum must be an array.`;
  }
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required) || !schema.required.every((r) => typeof r === 'string')) return 'parameters.required must be an array of property names.';
    const missing = schema.required.find((r) => !Object.hasOwn(properties, r as string));
    if (missing !== undefined) return `parameters.required names ${JSON.stringify(missing)}, which is not in parameters.properties.`;
  }
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties !== 'boolean') return 'parameters.additionalProperties must be true or false.';
  return null;
}

/** The declaration as the model is shown it (properties defaulted). */
export function toolParameters(schema: Record<string, unknown>): ToolParameters {
  return { ...schema, type: 'object', properties: (schema.properties as Record<string, unknown> | undefined) ?? {} } as ToolParameters;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const fits = (value: unknown, type: string): boolean => {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
};

/** Null when the arguments fit the schema; otherwise what does not, for the model to correct. */
export function argumentsProblem(schema: ToolParameters, args: unknown): string | null {
  if (!isRecord(args)) return 'the arguments must be a JSON object.';
  for (const name of schema.required ?? []) if (args[name] === undefined) return `"${name}" is required.`;
  for (const [name, value] of Object.entries(args)) {
    const property = schema.properties[name];
    if (property === undefined) {
      if (schema.additionalProperties === false) return `"${name}" is not a parameter of this tool.`;
      continue;
    }
    if (!isRecord(property)) continue;
    const types = property.type === undefined ? [] : Array.isArray(property.type) ? (property.type as string[]) : [property.type as string];
    if (types.length > 0 && !types.some((t) => fits(value, t))) return `"${name}" must be ${types.join(' or ')}.`;
    if (Array.isArray(property.enum) && !property.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
      return `"${name}" must be one of ${property.enum.map((o) => JSON.stringify(o)).join(', ')}.`;
    }
  }
  return null;
}
