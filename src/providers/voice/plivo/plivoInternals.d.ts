/**
 * The parts of the `plivo` package (4.x) the REST client reroutes through (restClient.ts); the
 * package ships them without declarations.
 */
declare module 'plivo/dist/rest/axios' {
  /** The package's request function over axios: `config.url` is the account's base URL for requests not flagged `is_voice_request`. */
  export function Axios(config: { authId: string; authToken: string; url: string; timeout?: number; userAgent?: string }): (method: string, action: string, params?: Record<string, unknown>) => Promise<{ body: unknown }>;
}
declare module 'plivo/dist/rest/utils' {
  export function camelCaseRequestWrapper<F>(request: F): F;
}
