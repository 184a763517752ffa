import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import twilio from 'twilio';
import { PROVIDER_BODY_LIMITS, TWILIO_MAX_PARAMETERS } from '../../../api/providerWebhooks/providerBody';
import { TWILIO_WEBHOOK_PATHS } from '../../../src/providers/voice/twilio/webhookUrls';
import { useTestApi } from '../../support/app';

/**
 * Issue 32: a provider webhook reads a bounded body and checks its signature before parsing
 * it. A forged 4 MB form of 400,000 parameters used to be read and parsed whole before its
 * signature was checked (three in parallel stalled the API for 10 s).
 */

const PUBLIC_URL = 'https://voice.example.test';
const AUTH_TOKEN = 'twilio-auth-token-0123456789';

/** 400,000 parameters, about 4 MB. */
const hugeForm = () => Buffer.from(Array.from({ length: 400_000 }, (_, i) => `p${i}=x`).join('&'));

interface Answer {
  status: number;
  body: unknown;
}

describe('provider webhooks: bounded bodies, checked before they are parsed', () => {
  const { api } = useTestApi({
    env: {
      VOICE_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000',
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_PUBLIC_URL: PUBLIC_URL,
      TWILIO_MEDIA_STREAM_URL: 'wss://media.example.test/media-stream',
      WHATSAPP_CLOUD_APP_SECRET: 'whatsapp-app-secret',
      RAZORPAY_WEBHOOK_SECRET: 'razorpay-webhook-secret',
    },
  });

  /** A POST with its length declared, or sent chunked with none. */
  function post(path: string, body: Buffer, headers: Record<string, string>, options: { chunked?: boolean } = {}): Promise<Answer> {
    const { port } = api.server.address() as AddressInfo;
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

  const form = { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'bm90IGEgc2lnbmF0dXJl' };
  const statusPath = `${TWILIO_WEBHOOK_PATHS.status}?call_id=call_nothing`;

  it('Twilio: three forged 4 MB forms at once are refused 413 too_large without being parsed; the event loop stays free', async () => {
    const body = hugeForm();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const answers = await Promise.all([
      post(statusPath, body, form),
      post(statusPath, body, form),
      post(statusPath, body, form, { chunked: true }),
      // The API answers its own probe meanwhile.
      new Promise<Answer>((resolve) => setTimeout(() => resolve(fetch(`http://127.0.0.1:${(api.server.address() as AddressInfo).port}/healthz`).then(async (r) => ({ status: r.status, body: await r.json() }))), 5)),
    ]);
    loop.disable();
    expect(answers).toEqual([
      { status: 413, body: { status: 'too_large' } },
      { status: 413, body: { status: 'too_large' } },
      { status: 413, body: { status: 'too_large' } },
      { status: 200, body: { status: 'ok' } },
    ]);
    // Parsing one such form took seconds; refusing it takes no parse. A generous bound for a shared machine.
    expect(loop.max / 1e6).toBeLessThan(250);
  });

  it('Twilio: a small form of too many parameters is refused 413 before parsing; within both limits a forged one is 401', async () => {
    const many = Buffer.from(Array.from({ length: TWILIO_MAX_PARAMETERS + 1 }, () => 'a').join('&'));
    expect(many.length).toBeLessThan(PROVIDER_BODY_LIMITS.twilio);
    expect(await post(statusPath, many, form)).toEqual({ status: 413, body: { status: 'too_large' } });
    const few = Buffer.from(Array.from({ length: TWILIO_MAX_PARAMETERS }, () => 'a').join('&'));
    expect(await post(statusPath, few, form)).toEqual({ status: 401, body: { status: 'invalid_signature' } });
    // Every Twilio webhook reads the same way.
    for (const path of [TWILIO_WEBHOOK_PATHS.voice, TWILIO_WEBHOOK_PATHS.answer, TWILIO_WEBHOOK_PATHS.transfer]) {
      expect(await post(path, hugeForm(), form)).toEqual({ status: 413, body: { status: 'too_large' } });
    }
  });

  it('Twilio: a signed form within the limits is read and answered as before', async () => {
    const params = { CallSid: 'CA00000000000000000000000000000001', CallStatus: 'ringing' };
    const signature = twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${statusPath}`, params);
    const res = await post(statusPath, Buffer.from(new URLSearchParams(params).toString()), { ...form, 'x-twilio-signature': signature });
    expect(res).toEqual({ status: 200, body: { status: 'unknown_call' } });
  });

  it('WhatsApp: past 3 MiB refused 413 before reading; within it, a forged body is 401 before any parse', async () => {
    const json = { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` };
    const over = Buffer.alloc(PROVIDER_BODY_LIMITS.whatsapp + 1, 0x20);
    expect(await post('/webhooks/whatsapp', over, json)).toEqual({ status: 413, body: { status: 'too_large' } });
    expect(await post('/webhooks/whatsapp', over, json, { chunked: true })).toEqual({ status: 413, body: { status: 'too_large' } });
    // Not even JSON: the signature is refused first.
    expect(await post('/webhooks/whatsapp', Buffer.alloc(2 * 1024 * 1024, 0x7b), json)).toEqual({ status: 401, body: { status: 'invalid_signature' } });
  });

  it('Razorpay: past 256 KiB refused 413; within it, a forged body is 401 before any parse', async () => {
    const json = { 'content-type': 'application/json', 'x-razorpay-signature': '0'.repeat(64) };
    expect(await post('/webhooks/razorpay', Buffer.alloc(PROVIDER_BODY_LIMITS.razorpay + 1, 0x20), json)).toEqual({ status: 413, body: { status: 'too_large' } });
    expect(await post('/webhooks/razorpay', Buffer.alloc(100 * 1024, 0x7b), json)).toEqual({ status: 401, body: { status: 'invalid_signature' } });
  });
});
