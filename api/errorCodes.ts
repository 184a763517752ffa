/**
 * The nine error codes (api-core §7), each with its HTTP status. Apart from the error helper
 * (api/errors.ts) so that the refusal table (api/refusals.ts), the routes and the OpenAPI
 * document name codes without importing the helper, which imports the table.
 */

export const ERROR_STATUS = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  failed_precondition: 412,
  rate_limited: 429,
  internal: 500,
  provider_error: 502,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
