import { argumentsProblem, handOverAsked, schemaProblem, toolParameters } from '../../../src/businessTools';
import { BUSINESS_TOOL_LIMITS as L } from '../../../src/businessTools/limits';
import { callId, effectiveTimeoutMs } from '../../../src/businessTools/callTool';

describe('a tool declaration’s parameters', () => {
  it('accepts an object schema and shows the model its properties', () => {
    expect(schemaProblem({ type: 'object' })).toBeNull();
    expect(toolParameters({ type: 'object' })).toEqual({ type: 'object', properties: {} });
    expect(schemaProblem({ type: 'object', properties: { n: { type: ['integer', 'null'] }, tag: { enum: ['a', 'b'] } }, required: ['n'], additionalProperties: false })).toBeNull();
  });

  it('refuses what a model API would not take, saying what is wrong', () => {
    expect(schemaProblem([])).toBe('parameters must be a JSON Schema object.');
    expect(schemaProblem({ properties: {} })).toBe('parameters must be an object schema ("type": "object").');
    expect(schemaProblem({ type: 'object', properties: [] })).toBe('parameters.properties must be an object.');
    expect(schemaProblem({ type: 'object', properties: { a: 'string' } })).toBe('parameters.properties.a must be a schema object.');
    expect(schemaProblem({ type: 'object', properties: { a: { type: 'date' } } })).toBe('parameters.properties.a.type "date" is not a JSON Schema type.');
    expect(schemaProblem({ type: 'object', properties: { a: { enum: 'x' } } })).toBe('parameters.properties.a.enum must be an array.');
    expect(schemaProblem({ type: 'object', properties: {}, required: 'a' })).toBe('parameters.required must be an array of property names.');
    expect(schemaProblem({ type: 'object', properties: {}, additionalProperties: {} })).toBe('parameters.additionalProperties must be true or false.');
    expect(schemaProblem({ type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(L.parametersMaxBytes) } } })).toBe(
      `parameters may have at most ${L.parametersMaxBytes} bytes of JSON.`,
    );
  });
});

describe('a call’s arguments against the schema', () => {
  const schema = toolParameters({
    type: 'object',
    properties: { order_id: { type: 'string' }, count: { type: 'integer' }, price: { type: 'number' }, kind: { enum: ['a', 'b'] }, note: { type: ['string', 'null'] } },
    required: ['order_id'],
    additionalProperties: false,
  });

  it('lets through what fits, and says what does not', () => {
    expect(argumentsProblem(schema, { order_id: 'A', count: 2, price: 2, kind: 'a', note: null })).toBeNull();
    expect(argumentsProblem(schema, { order_id: 'A', price: 2.5 })).toBeNull();
    expect(argumentsProblem(schema, 'A')).toBe('the arguments must be a JSON object.');
    expect(argumentsProblem(schema, {})).toBe('"order_id" is required.');
    expect(argumentsProblem(schema, { order_id: 'A', count: 2.5 })).toBe('"count" must be integer.');
    expect(argumentsProblem(schema, { order_id: 'A', kind: 'c' })).toBe('"kind" must be one of "a", "b".');
    expect(argumentsProblem(schema, { order_id: 'A', note: 3 })).toBe('"note" must be string or null.');
    expect(argumentsProblem(schema, { order_id: 'A', extra: 1 })).toBe('"extra" is not a parameter of this tool.');
    expect(argumentsProblem(toolParameters({ type: 'object', properties: {} }), { extra: 1 })).toBeNull();
  });
});

describe('an answer asking for a person', () => {
  it('reads hand_over as an object with a reason, a string, or true', () => {
    expect(handOverAsked({ hand_over: { reason: ' Refund too large ' } })).toBe('Refund too large');
    expect(handOverAsked({ hand_over: 'Wants a manager' })).toBe('Wants a manager');
    expect(handOverAsked({ hand_over: true })).toBe('The tool asked for a person.');
    expect(handOverAsked({ hand_over: {} })).toBe('The tool asked for a person.');
    expect(handOverAsked({ hand_over: 'x'.repeat(1000) })?.length).toBe(L.handOverReasonChars);
    for (const none of [{ hand_over: false }, { hand_over: null }, { status: 'ok' }, [], 'hand_over', null]) expect(handOverAsked(none)).toBeNull();
  });
});

describe('a call’s id and timeout', () => {
  it('names a run the same each time it is retried, and caps the timeout', () => {
    expect(callId('ws_1', 'turn-1:0')).toBe(callId('ws_1', 'turn-1:0'));
    expect(callId('ws_1', 'turn-1:0')).not.toBe(callId('ws_1', 'turn-1:1'));
    expect(callId('ws_1', 'r')).toMatch(/^tcall_[0-9a-f]{24}$/);
    expect(effectiveTimeoutMs({ timeout_ms: 120_000 })).toBe(L.maxTimeoutMs);
    expect(effectiveTimeoutMs({ timeout_ms: 1 })).toBe(L.minTimeoutMs);
    expect(effectiveTimeoutMs({ timeout_ms: 4_000 })).toBe(4_000);
  });
});
