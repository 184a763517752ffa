import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import twilio from 'twilio';
import { PROVIDER_BODY_LIMITS, TWILIO_MAX_PARAMETERS } from '../../../api/providerWebhooks/providerBody';
import { TWILIO_WEBHOOK_PATHS } from '../../../src/providers/voice/twilio/webhookUrls';
import { useTestApi } from '../../support/app';
import { FORGED_FORM_HEADERS, hugeForm, postRaw, type RawAnswer } from '../../support/forgedForm';
import { bearer } from '../../support/http';

/**
 * Issue 32: a provider webhook reads a bounded body and checks its signature before parsing
 * it. A forged 4 MB form of 400,000 parameters used to be read and parsed whole before its
 * signature was checked (three in parallel stalled the API for 10 s). How long the event loop
 * stalls under them is a figure of bench:api (forged forms), not a timed assertion here.
 */

const PUBLIC_URL = 'https://voice.example.test';
const AUTH_TOKEN = 'twilio-auth-token-0123456789';

describe('provider webhooks: bounded bodies, checked before they are parsed', () => {
  const { api, ws } = useTestApi({
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

  const post = (path: string, body: Buffer, headers: Record<string, string>, options: { chunked?: boolean } = {}) =>
    postRaw((api.server.address() as AddressInfo).port, path, body, headers, options);

  const ping = async (): Promise<RawAnswer> => {
    const res = await fetch(`http://127.0.0.1:${(api.server.address() as AddressInfo).port}/api/v1/ping`, { headers: bearer(ws.key) });
    return { status: res.status, body: await res.json() };
  };

  const form = FORGED_FORM_HEADERS;
  const statusPath = `${TWILIO_WEBHOOK_PATHS.status}?call_id=call_nothing`;

  it('Twilio: three forged 4 MB forms at once are refused 413 too_large, read no further than the limit, and the API keeps answering', async () => {
    const body = hugeForm();
    // What the server read of each forged form, from its side of the connection.
    const forged: Socket[] = [];
    let firstArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    const onRequest = (req: IncomingMessage) => {
      if (!req.url?.startsWith(TWILIO_WEBHOOK_PATHS.status)) return;
      forged.push(req.socket);
      firstArrived();
    };
    api.server.on('request', onRequest);
    try {
      const answers = await Promise.all([
        post(statusPath, body, form),
        post(statusPath, body, form),
        post(statusPath, body, form, { chunked: true }),
        // A key's request sent while the forms are on their way is answered as usual.
        arrived.then(ping),
      ]);
      expect(answers).toEqual([
        { status: 413, body: { status: 'too_large' } },
        { status: 413, body: { status: 'too_large' } },
        { status: 413, body: { status: 'too_large' } },
        { status: 200, body: expect.objectContaining({ ok: true, workspace_id: ws.workspaceId }) },
      ]);
      expect(forged).toHaveLength(3);
      // The limit is 64 KiB; the socket reads ahead in 64 KiB chunks until the refusal closes it.
      // Reading the forms whole (4 MB each) is what stalled the API.
      for (const socket of forged) expect(socket.bytesRead).toBeLessThan(8 * PROVIDER_BODY_LIMITS.twilio);
    } finally {
      api.server.off('request', onRequest);
    }
    // And after them.
    expect(await ping()).toEqual({ status: 200, body: expect.objectContaining({ ok: true, workspace_id: ws.workspaceId }) });
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
