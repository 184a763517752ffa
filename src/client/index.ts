import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import { OrchestratorApiError } from './errors';
import { idempotentOperations, type paths } from './generated/v1';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';
import { abortableSleep, retryingFetch, type FetchLike, type RetryNotice } from './transport';

/**
 * The typed client for /api/v1, published as the package `@orchestrator/client` (packages/client, docs/client.md). Requests
 * and responses are typed by `paths`, generated from the API's OpenAPI document
 * (`npm run api:types`); failures throw OrchestratorApiError; list routes page with an async
 * iterator; creates that honour `Idempotency-Key` get one unless the caller sent one; retries
 * follow the contract's guidance (src/client/retry.ts).
 */

export type { components, operations, paths } from './generated/v1';
export { idempotentOperations } from './generated/v1';
export { OrchestratorApiError, isEnvelope, type ErrorCode, type ErrorEnvelope } from './errors';
export { DEFAULT_RETRY_POLICY, retryDelay, type AttemptOutcome, type RetryContext, type RetryPolicy } from './retry';
export type { FetchLike, RetryNotice } from './transport';
export { verify, WebhookVerificationError, type HeaderSource, type VerificationFailure, type VerifyOptions, type WebhookEnvelope } from '../webhooks/verify';

export interface ClientOptions {
  /** Where the API answers, without `/api/v1` (the paths carry it), e.g. `https://orchestrator.example.com`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Changes to the retry policy, or `false` for one try per request. */
  retry?: Partial<RetryPolicy> | false;
  /** Headers sent on every request (e.g. `X-Correlation-Id`). */
  headers?: Record<string, string>;
  /** Told before each retry: what came back and how long the client waits. */
  onRetry?: (notice: RetryNotice) => void;
  /** The fetch that sends each try (default: the global fetch). */
  fetch?: FetchLike;
  /** Makes the `Idempotency-Key` of a create that was sent without one (default: a random UUID). */
  idempotencyKey?: () => string;
  /** The clock, randomness and waiting of retries, for tests. */
  now?: () => Date;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Media = `${string}/${string}`;

/** The paths that have an operation for this method. */
export type PathsWith<M extends HttpMethod> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];

/** What an operation takes besides its path: path and query parameters, headers, body, signal. */
export type OperationInit<P extends keyof paths, M extends HttpMethod> = MaybeOptionalInit<paths[P], M>;

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The init argument, optional when nothing in it is required. */
type InitArgs<I> = RequiredKeys<I> extends never ? [init?: I] : [init: I];

/** The success body of an operation. */
export type ResponseData<P extends keyof paths, M extends HttpMethod> = NonNullable<FetchResponse<paths[P][M] & Record<string | number, unknown>, object, Media>['data']>;

type Operation<M extends HttpMethod> = <P extends PathsWith<M>>(path: P, ...init: InitArgs<OperationInit<P, M>>) => Promise<ResponseData<P, M>>;

/** GET routes that answer a page envelope (`items`, `next_cursor`) and take a `cursor`. */
export type ListPath = {
  [P in PathsWith<'get'>]: ResponseData<P, 'get'> extends { items: unknown[]; next_cursor: string | null } ? P : never;
}[PathsWith<'get'>];
export type Page<P extends ListPath> = ResponseData<P, 'get'>;
export type PageItem<P extends ListPath> = Page<P> extends { items: (infer T)[] } ? T : never;

export interface OrchestratorClient {
  get: Operation<'get'>;
  post: Operation<'post'>;
  patch: Operation<'patch'>;
  put: Operation<'put'>;
  delete: Operation<'delete'>;
  /**
   * Every item of a list route, page after page, until a page comes back without
   * `next_cursor` (a short page ends the walk, api-core §4). `params.query.cursor`, when
   * given, is where the walk starts. A transcript page may be short while more turns follow
   * (api-core §4): compare with the conversation's `message_count`.
   */
  paginate<P extends ListPath>(path: P, ...init: InitArgs<OperationInit<P, 'get'>>): AsyncGenerator<PageItem<P>, void, undefined>;
  /** The pages themselves, as `paginate` walks them. */
  pages<P extends ListPath>(path: P, ...init: InitArgs<OperationInit<P, 'get'>>): AsyncGenerator<Page<P>, void, undefined>;
  /**
   * The openapi-fetch client underneath, with the same retries and idempotency keys: its
   * methods answer `{data, error, response}` instead of throwing, for callers that want the
   * response (its headers, e.g. `Idempotent-Replayed`).
   */
  raw: Client<paths, Media>;
}

export function createClient(options: ClientOptions): OrchestratorClient {
  const policy: RetryPolicy = options.retry === false ? { ...DEFAULT_RETRY_POLICY, maxRetries: 0 } : { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const fetch = retryingFetch({
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
    policy,
    now: options.now ?? (() => new Date()),
    random: options.random ?? Math.random,
    sleep: options.sleep ?? abortableSleep,
    onRetry: options.onRetry,
  });
  const raw = createFetchClient<paths, Media>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
    fetch,
  });
  raw.use(idempotencyKeys(options.idempotencyKey ?? randomUUID));

  const call =
    (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE') =>
    async (path: string, init?: object): Promise<unknown> => {
      // The generic signatures are the public face; here one untyped call serves every path.
      const send = raw[method] as (path: string, init?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      const { data, error, response } = await send(path, init);
      if (!response.ok) throw OrchestratorApiError.fromResponse(response, error);
      return data;
    };
  const get = call('GET');

  async function* pages(path: string, init?: { params?: { query?: Record<string, unknown> } }): AsyncGenerator<{ items: unknown[]; next_cursor: string | null }> {
    let cursor = init?.params?.query?.cursor as string | undefined;
    for (;;) {
      const query = { ...init?.params?.query, ...(cursor === undefined ? {} : { cursor }) };
      const page = (await get(path, { ...init, params: { ...init?.params, query } })) as { items: unknown[]; next_cursor: string | null };
      yield page;
      if (!page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }
  async function* paginate(path: string, init?: object): AsyncGenerator<unknown> {
    for await (const page of pages(path, init)) yield* page.items;
  }

  return {
    get,
    post: call('POST'),
    patch: call('PATCH'),
    put: call('PUT'),
    delete: call('DELETE'),
    pages,
    paginate,
    raw,
  } as unknown as OrchestratorClient;
}

/**
 * Gives a create that honours `Idempotency-Key` (api-core §4; the list is generated from the
 * document) a fresh key unless the caller set one. Set before the first try, so every retry
 * of the request carries the same key and a success is replayed, never repeated.
 */
function idempotencyKeys(newKey: () => string): Middleware {
  const keyed = new Set<string>(idempotentOperations);
  return {
    onRequest({ request, schemaPath }) {
      if (keyed.has(`${request.method} ${schemaPath}`) && !request.headers.has('idempotency-key')) {
        request.headers.set('Idempotency-Key', newKey());
      }
      return undefined;
    },
  };
}
