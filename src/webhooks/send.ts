import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { SignedHeaders } from './signature';
import { addressRange, hostOf, isPublicAddress, publicOnlyLookup } from './urlPolicy';

/**
 * One HTTP POST of a webhook: the exact body bytes, a hard deadline, no redirects followed
 * (a 3xx is an answer that is not 2xx), and the address policy enforced on the connection
 * itself. It never throws: every outcome is a result the caller records.
 */

export interface SendRequest {
  url: string;
  body: Buffer;
  headers: Record<string, string> | SignedHeaders;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Aborts the request (an activity cancelled by a worker shutting down). */
  signal?: AbortSignal;
  /**
   * Keep the whole answer up to this many bytes and stop reading past it (`tooLarge`), for a
   * caller that uses the answer (an agent's HTTP tool). Omitted: the start is kept for the
   * console and the rest read up to MAX_READ_BYTES and dropped.
   */
  maxResponseBytes?: number;
}

export interface SendResult {
  /** null when no HTTP answer came (refused address, connection error, timeout). */
  statusCode: number | null;
  durationMs: number;
  /** Why it failed without an answer, or null. */
  error: string | null;
  /** The start of the answer's body, for the console (all of it, within `maxResponseBytes` when given). */
  responseBody: string | null;
  /** The answer went past `maxResponseBytes` (or MAX_READ_BYTES) and was cut off unread. */
  tooLarge: boolean;
}

/** How much of an answer's body is kept for the console; the rest is read and dropped. */
const KEPT_BODY_BYTES = 1024;
/** Past this the answer is cut off, so a receiver cannot stream forever at us. */
const MAX_READ_BYTES = 256 * 1024;

export const USER_AGENT = 'orchestrator-webhooks/1';

// Connections are reused per policy, so a socket opened under one policy never serves the other;
// `fresh` agents open a new connection for every request (the retry on a reused socket the
// receiver had closed, below).
const agents = new Map<string, HttpAgent>();
function agentFor(protocol: string, allowPrivate: boolean, fresh = false): HttpAgent {
  const key = `${protocol}${allowPrivate}${fresh}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: !fresh, maxSockets: 64, maxFreeSockets: 16, ...(allowPrivate ? {} : { lookup: publicOnlyLookup }) };
    agent = protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    agents.set(key, agent);
  }
  return agent;
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EWEBHOOKBLOCKED') return e.message;
  if (e?.code && e.message && !e.message.includes(e.code)) return `${e.code}: ${e.message}`;
  return e?.message || String(err);
}

export function sendWebhook(req: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (error: string): SendResult => ({ statusCode: null, durationMs: elapsed(), error, responseBody: null, tooLarge: false });
  const kept = req.maxResponseBytes ?? KEPT_BODY_BYTES;
  const readLimit = req.maxResponseBytes ?? MAX_READ_BYTES;

  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return Promise.resolve(fail('the endpoint URL is not valid'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve(fail(`${url.protocol} URLs are not delivered to`));
  const host = hostOf(url);
  // Node does not call the lookup for IP literals, so they are judged here.
  if (!req.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return Promise.resolve(fail(`${host} is a ${addressRange(host)} address; private, loopback and link-local addresses are refused`));
  }

  if (req.signal?.aborted) return Promise.resolve(fail('the attempt was interrupted (worker shutting down)'));
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let outgoing: ClientRequest;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const timer = setTimeout(() => {
      outgoing.destroy();
      finish(fail(`no answer within ${req.timeoutMs / 1000} s`));
    }, req.timeoutMs);
    const onAbort = () => {
      outgoing.destroy();
      finish(fail('the attempt was interrupted (worker shutting down)'));
    };
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const post = (fresh: boolean) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      outgoing = send(url, {
        method: 'POST',
        agent: agentFor(url.protocol, req.allowPrivate, fresh),
        headers: {
          ...req.headers,
          'content-type': 'application/json',
          'content-length': String(req.body.length),
          'user-agent': USER_AGENT,
        },
      });
      let answered = false;
      outgoing.on('error', (err) => {
        // A kept-alive connection the receiver closed as this request went out (its idle timeout,
        // seen late by a busy process): the request never reached it, so it is sent once more on a
        // new connection, within the same deadline (docs/decisions/platform.md, "Kept-alive
        // connections"). The same id and signature: a receiver that did see it drops the repeat.
        if (!fresh && !answered && !settled && outgoing.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') post(true);
        else finish(fail(describe(err)));
      });
      outgoing.on('response', (res: IncomingMessage) => {
        answered = true;
        const chunks: Buffer[] = [];
        let read = 0;
        let tooLarge = false;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read - chunk.length < kept) chunks.push(chunk);
          if (read > readLimit) {
            tooLarge = true;
            res.destroy();
          }
        });
        const done = () =>
          finish({
            statusCode: res.statusCode ?? null,
            durationMs: elapsed(),
            error: null,
            responseBody: Buffer.concat(chunks).subarray(0, kept).toString('utf8') || null,
            tooLarge,
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      });
      outgoing.end(req.body);
    };
    post(false);
  });
}
