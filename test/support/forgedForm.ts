import { request as httpRequest } from 'node:http';

/**
 * Issue 32's forged Twilio form and the raw POST that sends it: the provider-webhook limits
 * test asserts how the API refuses it, bench:api measures how long it stalls the API's event
 * loop meanwhile.
 */

/** 400,000 parameters, about 4 MB. */
export const hugeForm = () => Buffer.from(Array.from({ length: 400_000 }, (_, i) => `p${i}=x`).join('&'));

/** A form post with a signature that is not one. */
export const FORGED_FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'bm90IGEgc2lnbmF0dXJl' } as const;

export interface RawAnswer {
  status: number;
  body: unknown;
}

/** A POST to 127.0.0.1:`port` with its length declared, or sent chunked with none. */
export function postRaw(port: number, path: string, body: Buffer, headers: Record<string, string>, options: { chunked?: boolean } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path, agent: false, headers: { ...headers, ...(options.chunked ? {} : { 'content-length': String(body.length) }) } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      },
    );
    // The server may answer and close before it has taken every byte: the answer is what counts.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    if (options.chunked) {
      for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}
