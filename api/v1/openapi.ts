import { IDEMPOTENCY_KEY_PATTERN } from '../middleware/idempotency';
import { openApiDocument, openApiRoute, type DocumentSurface } from '../openapi';
import type { ErrorCode } from '../errorCodes';
import type { RouteDef } from '../route';

/** Versions this description, not the API (api-core §9). */
export const DESCRIPTION_VERSION = '0.3.0';

const KEYED_ERRORS: ErrorCode[] = ['invalid_argument', 'unauthenticated', 'permission_denied', 'rate_limited', 'internal'];

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
  description: 'Echoed as `error.correlation_id` (its first 128 characters).',
  schema: { type: 'string' },
};

const idempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Replays the first response for 24 hours for the same key and the same raw body. 1 to 255 visible ASCII characters.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source },
};

const KEYED_SECURITY: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

const publicSurface: DocumentSurface = {
  info: {
    title: 'Orchestrator public API',
    version: DESCRIPTION_VERSION,
    description: 'AI voice calls, WhatsApp messages, conversations, campaigns, tickets and the dues app. Every path is under /api/v1.',
  },
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer' },
    apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
  },
  security: (route) => (route.auth ? KEYED_SECURITY : []),
  baseErrors: (route) => (route.auth ? KEYED_ERRORS : []),
  headers: (route) => [...(route.auth ? authHeaders : []), correlationHeader, ...(route.idempotent ? [idempotencyHeader] : [])],
  extensions: (route) => (route.auth?.scope ? { 'x-required-scope': route.auth.scope } : {}),
  usesDatabase: (route) => Boolean(route.auth),
};


/** The OpenAPI 3.1 description of every public route, generated from their definitions. */
export function publicDocument(routes: RouteDef[]): Record<string, unknown> {
  return openApiDocument(routes, publicSurface);
}

/** GET /api/v1/openapi.json: no key, not rate limited; describes itself too. */
export function publicOpenApiRoute(all: () => RouteDef[]): RouteDef {
  return openApiRoute(
    '/api/v1/openapi.json',
    'getOpenApi',
    all,
    publicSurface,
    'This machine-readable description. No key needed; not counted against the rate limit.',
  );
}
