import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors';
import type { RouteDef } from './route';

/** Versions this description, not the API (api-core §9). */
export const DESCRIPTION_VERSION = '0.2.0';

const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
    request_id: z.string(),
    correlation_id: z.string(),
  }),
});

const KEYED_ERRORS: ErrorCode[] = ['invalid_argument', 'unauthenticated', 'permission_denied', 'rate_limited', 'internal'];

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function queryParameters(query: z.ZodObject | undefined, where: 'query' | 'path'): unknown[] {
  if (!query) return [];
  const shape = jsonSchema(query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(shape.properties ?? {}).map(([name, schema]) => ({
    name,
    in: where,
    required: where === 'path' || (shape.required ?? []).includes(name),
    schema,
  }));
}

const authHeaders = [
  {
    name: 'Authorization',
    in: 'header',
    required: false,
    description: '`Bearer <API key>`. Send this or `X-Api-Key`.',
    schema: { type: 'string' },
  },
  { name: 'X-Api-Key', in: 'header', required: false, description: 'The API key. Send this or `Authorization`.', schema: { type: 'string' } },
];

const correlationHeader = {
  name: 'X-Correlation-Id',
  in: 'header',
  required: false,
  description: 'Echoed as `error.correlation_id`.',
  schema: { type: 'string' },
};

const idempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Replays the first response for 24 hours for the same key and the same raw body.',
  schema: { type: 'string', maxLength: 255 },
};

/** Any keyed route, while the database does not answer (api/errors.ts `databaseUnavailable`). */
const unavailableResponse = {
  description: '`internal` with reason `unavailable`: the database did not answer in time; retry after `Retry-After` seconds.',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
};

/** The OpenAPI 3.1 description of every public route, generated from their definitions. */
export function openApiDocument(routes: RouteDef[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const errors = new Set<ErrorCode>([...(route.auth ? KEYED_ERRORS : []), ...(route.errors ?? [])]);
    const responses: Record<string, unknown> = {
      [route.response.status]: {
        description: route.response.description,
        content: { 'application/json': { schema: jsonSchema(route.response.schema, 'output') } },
      },
    };
    for (const code of errors) {
      responses[ERROR_STATUS[code]] = {
        description: `\`${code}\``,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    }
    if (route.auth) responses[503] = unavailableResponse;
    paths[route.path] ??= {};
    paths[route.path]![route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.auth ? { security: [{ bearerAuth: [] }, { apiKeyHeader: [] }] } : { security: [] }),
      ...(route.auth?.scope ? { 'x-required-scope': route.auth.scope } : {}),
      parameters: [
        ...queryParameters(route.params, 'path'),
        ...queryParameters(route.query, 'query'),
        ...(route.auth ? authHeaders : []),
        correlationHeader,
        ...(route.idempotent ? [idempotencyHeader] : []),
      ],
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Orchestrator public API',
      version: DESCRIPTION_VERSION,
      description: 'AI voice calls, WhatsApp messages, conversations, campaigns, tickets and the dues app. Every path is under /api/v1.',
    },
    paths,
    components: {
      schemas: { ErrorEnvelope: jsonSchema(errorEnvelopeSchema, 'output') },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
    },
  };
}

/** GET /api/v1/openapi.json: no key, not rate limited; describes itself too. */
export function openApiRoute(all: () => RouteDef[]): RouteDef {
  let cached: Record<string, unknown> | undefined;
  return {
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This machine-readable description. No key needed; not counted against the rate limit.',
    response: { status: 200, description: 'OpenAPI 3.1 document.', schema: z.object({ openapi: z.string() }).passthrough() },
    handler: (ctx) => {
      cached ??= openApiDocument(all());
      ctx.body = cached;
    },
  };
}
