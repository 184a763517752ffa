import { MAX_HEADER_BYTES } from './server';
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './errorCodes';
import type { BodyMedia, RouteDef } from './route';

/** How one surface (the public API, the console) describes itself around its routes. */
export interface DocumentSurface {
  info: { title: string; version: string; description: string };
  securitySchemes: Record<string, unknown>;
  /** The security requirement of a route; `[]` for none. */
  security(route: RouteDef): Record<string, string[]>[];
  /** Failures every route of this surface can give, beyond those the route names. */
  baseErrors(route: RouteDef): ErrorCode[];
  /** Header parameters of a route, after its path and query parameters. */
  headers(route: RouteDef): unknown[];
  /** Extra keys on an operation (e.g. `x-required-scope`). */
  extensions?(route: RouteDef): Record<string, unknown>;
  /** Whether the route reads the database, so it can answer 503 `unavailable` during an outage. */
  usesDatabase(route: RouteDef): boolean;
}

/** Every error answer's body: the one envelope (components.schemas.ErrorEnvelope). */
const errorEnvelopeContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } };

/** The request line and headers together over the server's limit. */
const headersTooLargeResponse = {
  description: `\`invalid_argument\`: the request line and headers together are over ${MAX_HEADER_BYTES} bytes.`,
  content: errorEnvelopeContent,
};

/** A route that reads the database, while it does not answer (api/errors.ts `databaseUnavailable`). */
const unavailableResponse = {
  description: '`internal` with reason `unavailable` (the database did not answer in time) or `busy` (too many requests changing the workspace at once); retry after `Retry-After` seconds.',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
  content: errorEnvelopeContent,
};

const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
    request_id: z.string(),
    correlation_id: z.string(),
  }),
});

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** A file body's media types, one or several. */
const mediaTypes = (media: BodyMedia): string[] => (typeof media.type === 'string' ? [media.type] : [...media.type]);

function parameters(schema: z.ZodObject | undefined, where: 'query' | 'path'): unknown[] {
  if (!schema) return [];
  const shape = jsonSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(shape.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (shape.required ?? []).includes(name),
    schema: property,
  }));
}

/** Every path parameter of the route's path, each once: its schema where the route has one, else a plain string. */
function pathParameters(route: RouteDef): unknown[] {
  const described = parameters(route.params, 'path') as { name: string }[];
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return names.map((name) => described.find((p) => p.name === name) ?? { name, in: 'path', required: true, schema: { type: 'string' } });
}

/** An OpenAPI 3.1 description of the routes, generated from their definitions. */
export function openApiDocument(routes: RouteDef[], surface: DocumentSurface): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const errors = new Set<ErrorCode>([...surface.baseErrors(route), ...(route.errors ?? [])]);
    const responses: Record<string, unknown> = {
      // A 204 has no body, so it names no media type.
      [route.response.status]:
        route.response.status === 204
          ? { description: route.response.description }
          : {
              description: route.response.description,
              content: { [route.response.mediaType ?? 'application/json']: { schema: route.response.schema ? jsonSchema(route.response.schema, 'output') : { type: 'object' } } },
            },
    };
    for (const code of errors) {
      responses[ERROR_STATUS[code]] = {
        description: `\`${code}\``,
        content: errorEnvelopeContent,
      };
    }
    // A file body (route `bodyMedia`, api/middleware/textBody.ts) is refused whole when it is
    // past the route's size or of another media type, before the route's own checks.
    if (route.bodyMedia) {
      responses[413] = { description: `\`invalid_argument\`: the file is larger than ${route.bodyMedia.maxBytes} bytes.`, content: errorEnvelopeContent };
      responses[415] = { description: `\`invalid_argument\`: the body is not ${mediaTypes(route.bodyMedia).join(' or ')}.`, content: errorEnvelopeContent };
    }
    // The server answers this before any route runs (api/server.ts), so every operation can give it.
    responses[431] = headersTooLargeResponse;
    if (surface.usesDatabase(route)) responses[503] = unavailableResponse;
    paths[route.path] ??= {};
    paths[route.path]![route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      security: surface.security(route),
      ...(surface.extensions?.(route) ?? {}),
      parameters: [...pathParameters(route), ...parameters(route.query, 'query'), ...surface.headers(route)],
      ...(route.body
        ? { requestBody: { required: true, content: Object.fromEntries((route.bodyMedia ? mediaTypes(route.bodyMedia) : ['application/json']).map((type) => [type, { schema: jsonSchema(route.body!, 'input') }])) } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: surface.info,
    paths,
    components: {
      schemas: { ErrorEnvelope: jsonSchema(errorEnvelopeSchema, 'output') },
      securitySchemes: surface.securitySchemes,
    },
  };
}

/** The document served at `path` by the surface's own router; built once, on first request. */
export function openApiRoute(path: string, operationId: string, all: () => RouteDef[], surface: DocumentSurface, summary: string): RouteDef {
  let cached: Record<string, unknown> | undefined;
  return {
    method: 'get',
    path,
    operationId,
    summary,
    response: { status: 200, description: 'OpenAPI 3.1 document.', schema: z.object({ openapi: z.string() }).passthrough() },
    handler: (ctx) => {
      cached ??= openApiDocument(all(), surface);
      ctx.body = cached;
    },
  };
}
