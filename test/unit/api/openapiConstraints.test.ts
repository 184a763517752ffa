import { publicDocument } from '../../../api/v1/openapi';
import { publicRoutes } from '../../../api/v1';
import { consoleDocument, consoleRoutes } from '../../../api/console';

/**
 * Issue 12 point 8: what the validators refuse, the document refuses too, so generated
 * clients and fuzzers agree with the server. A representative set of constraints.
 */
describe('the public OpenAPI document states the validators’ constraints', () => {
  const doc = publicDocument(publicRoutes({ db: { collection: () => ({}) } } as never)) as {
    paths: Record<string, Record<string, { parameters: { name: string; in: string; schema: Record<string, unknown> }[]; requestBody?: { content: Record<string, { schema: SchemaNode }> } }>>;
  };
  type SchemaNode = { properties?: Record<string, SchemaNode>; items?: SchemaNode; anyOf?: SchemaNode[]; [k: string]: unknown };

  const parameter = (path: string, method: string, name: string) => doc.paths[path]![method]!.parameters.find((p) => p.name === name)!;
  const body = (path: string, method: string) => doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;
  /** A property, looking through `nullable` (anyOf with null). */
  const prop = (node: SchemaNode, name: string): SchemaNode => {
    const direct = node.properties?.[name] ?? node.anyOf?.find((n) => n.properties)?.properties?.[name];
    return direct!;
  };
  const nonNull = (node: SchemaNode): SchemaNode => node.anyOf?.find((n) => n.type !== 'null') ?? node;

  it('Idempotency-Key: 1 to 255 visible ASCII characters', () => {
    for (const [path, method] of [
      ['/api/v1/calls', 'post'],
      ['/api/v1/messages', 'post'],
      ['/api/v1/tickets', 'post'],
    ]) {
      const header = parameter(path!, method!, 'Idempotency-Key');
      expect(header.in).toBe('header');
      expect(header.schema).toEqual({ type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]{1,255}$' });
      expect(new RegExp(header.schema.pattern as string).test('key with spaces')).toBe(false);
    }
  });

  it('a capture field label may not be blank; details hold at most 20 entries', () => {
    const call = body('/api/v1/calls', 'post');
    const label = prop(nonNull(prop(nonNull(prop(call, 'capture')), 'fields')).items!, 'label');
    expect(label).toMatchObject({ type: 'string', maxLength: 80, pattern: '\\S' });
    expect(new RegExp(label.pattern as string).test('   ')).toBe(false);
    expect(prop(call, 'details')).toMatchObject({ maxProperties: 20 });
    expect(prop(call, 'ring_seconds')).toMatchObject({ minimum: 10, maximum: 90 });
    expect(prop(call, 'to')).toMatchObject({ minLength: 6, maxLength: 20, pattern: '^\\+?\\d+$' });
  });

  it('path parameters carry their constraints', () => {
    expect(parameter('/api/v1/calls/{call_id}', 'get', 'call_id').schema).toEqual({ type: 'string', minLength: 1, maxLength: 64 });
    expect(parameter('/api/v1/calls/{call_id}/hangup', 'post', 'call_id').schema).toEqual({ type: 'string', minLength: 1, maxLength: 64 });
    expect(parameter('/api/v1/conversations/{conversation_id}', 'get', 'conversation_id').schema).toEqual({ type: 'string', minLength: 1, maxLength: 64 });
    expect(parameter('/api/v1/tickets/{ticket_id}', 'get', 'ticket_id').schema).toEqual({ type: 'string', pattern: '^tkt_[0-9a-f]{24}$' });
  });

  it('enums, patterns and query limits', () => {
    const template = nonNull(prop(body('/api/v1/messages', 'post'), 'template'));
    expect(prop(template, 'name')).toMatchObject({ minLength: 1, maxLength: 120, pattern: '^[a-z0-9_]+$' });
    expect(prop(body('/api/v1/tickets', 'post'), 'priority')).toMatchObject({ enum: ['low', 'normal', 'high', 'urgent'] });
    expect(parameter('/api/v1/conversations/{conversation_id}/messages', 'get', 'limit').schema).toMatchObject({ minimum: 1, maximum: 200 });
    expect(parameter('/api/v1/conversations/{conversation_id}/messages', 'get', 'cursor').schema).toMatchObject({ pattern: '^msg_[0-9a-f]{24}$' });
    expect(parameter('/api/v1/agents', 'get', 'limit').schema).toMatchObject({ minimum: 1, maximum: 100 });
  });
});

describe('the console OpenAPI document states what its routes answer', () => {
  const doc = consoleDocument(consoleRoutes({ db: { collection: () => ({}) }, config: { CONSOLE_TOKEN: 'ctk_document_only_0123' } } as never)) as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>;
  };
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));

  it('every route under a workspace documents the 404 of an unknown workspace', () => {
    const underWorkspace = operations.filter((o) => o.path.includes('{workspace_id}'));
    expect(underWorkspace.length).toBeGreaterThan(20);
    expect(underWorkspace.filter((o) => !o.op.responses['404']).map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  it('every operation documents the 431 the server gives for oversized headers, before any route runs', () => {
    expect(operations.filter((o) => !o.op.responses['431']).map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  it('a 204 names no media type (it has no body)', () => {
    const noContent = operations.filter((o) => o.op.responses['204']);
    expect(noContent.map((o) => `${o.method} ${o.path}`)).toContain('delete /console/v1/workspaces/{workspace_id}/simulator/calls/{destination}');
    for (const o of noContent) expect(o.op.responses['204']!.content).toBeUndefined();
  });
});

/**
 * Issue 27: every route of both surfaces declares what it answers, so the console's generated
 * types (api/console/web/src/generated/console.ts) and the typed client are the server's word,
 * not a hand-written mirror. An open answer (`{type: object}`, or a list of anything) counts as
 * none. What a handler really sends is held to the schema in test runs (api/responseCheck.ts).
 */
describe('every route declares its response schema', () => {
  const deps = { db: { collection: () => ({}) }, config: { CONSOLE_TOKEN: 'ctk_document_only_0123' } } as never;
  type Node = { type?: string; properties?: Record<string, Node>; items?: Node; anyOf?: Node[]; oneOf?: Node[]; allOf?: Node[]; additionalProperties?: Node | boolean };
  type Operation = { responses: Record<string, { content?: Record<string, { schema: Node }> }> };
  const surfaces = {
    public: { routes: publicRoutes(deps), document: (routes: never) => publicDocument(routes) },
    console: { routes: consoleRoutes(deps), document: (routes: never) => consoleDocument(routes) },
  };

  /** Where a schema leaves a list's items open (`{}`), as a path. */
  function openLists(node: Node, at: string): string[] {
    const found: string[] = [];
    if (node.items && Object.keys(node.items).length === 0) found.push(`${at}[]`);
    if (node.items) found.push(...openLists(node.items, `${at}[]`));
    for (const [key, child] of Object.entries(node.properties ?? {})) found.push(...openLists(child, `${at}.${key}`));
    for (const child of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) found.push(...openLists(child, at));
    if (node.additionalProperties && typeof node.additionalProperties === 'object') found.push(...openLists(node.additionalProperties, `${at}.*`));
    return found;
  }

  for (const [name, surface] of Object.entries(surfaces)) {
    it(`${name}: each route with a body names its schema`, () => {
      const missing = surface.routes.filter((r) => r.response.status !== 204 && !r.response.schema).map((r) => `${r.method} ${r.path}`);
      expect(missing).toEqual([]);
    });

    it(`${name}: no answer in the document is open`, () => {
      const doc = surface.document(surface.routes as never) as { paths: Record<string, Record<string, Operation>> };
      const open: string[] = [];
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          for (const [status, response] of Object.entries(op.responses)) {
            if (!status.startsWith('2') || !response.content) continue;
            for (const { schema } of Object.values(response.content)) {
              if (schema.type === 'object' && !schema.properties && !schema.additionalProperties) open.push(`${method} ${path} ${status}`);
              open.push(...openLists(schema, '').map((where) => `${method} ${path} ${status} ${where}`));
            }
          }
        }
      }
      expect(open).toEqual([]);
    });
  }
});
