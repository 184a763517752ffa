import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeCarrier, type FakeCallback } from './fakeCarrier';
import { PlivoStreamClient } from './plivoStreamClient';

/**
 * What the far end does with a call to one destination (FakePlivo.script): answered by a
 * person (hangs up after `talkMs`, or once it settles when a promise; null: stays until our side ends or moves the call), by a
 * machine, busy, unanswered, or failed with a hang-up cause.
 */
export type FakePlivoScript =
  | { kind: 'answer'; ringMs?: number; talkMs: number | Promise<unknown> | null }
  | { kind: 'machine'; ringMs?: number }
  | { kind: 'busy'; ringMs?: number }
  | { kind: 'no-answer'; ringMs?: number }
  | { kind: 'failed'; cause: string; ringMs?: number };

export interface FakePlivoCall {
  uuid: string;
  requestUuid: string | null;
  from: string;
  to: string;
  direction: 'outbound' | 'inbound';
  status: 'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'failed' | 'no-answer' | 'cancel' | 'timeout';
  params: Record<string, unknown>;
  answeredAt: Date | null;
  endedAt: Date | null;
  /** The XML documents the call ran (its answer, a transfer). */
  xml: string[];
  stream?: PlivoStreamClient;
  hangupCause: string | null;
}

export type FakePlivoCallback = FakeCallback;

/** Where a `<Stream>` is opened (the media process on loopback), and the person's part on it. */
export interface FakePlivoMedia {
  localUrl: string;
  person?: (stream: PlivoStreamClient, call: FakePlivoCall) => Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const talk = (talkMs: number | Promise<unknown>) => (typeof talkMs === 'number' ? sleep(talkMs) : talkMs.catch(() => undefined));

/** Plivo's time format in its requests: `YYYY-MM-DD HH:MM:SS`. */
const plivoTime = (at: Date) => at.toISOString().slice(0, 19).replace('T', ' ');

/**
 * Plivo's V3 request signature, computed as Plivo documents it: HMAC-SHA256 under the auth
 * token, base64, of the URL (scheme, host, path) with its query parameters sorted, then for a
 * POST the form parameters sorted and written key then value, then `.` and the nonce. Written
 * here apart from the `plivo` package, which the app validates with.
 */
export function plivoSignatureV3(authToken: string, method: 'GET' | 'POST', url: string, params: Record<string, string>, nonce: string): string {
  const parsed = new URL(url);
  const base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  const query = [...parsed.searchParams.entries()].sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const form = method === 'POST' ? Object.keys(params).sort().map((key) => `${key}${params[key]}`).join('') : '';
  let message = base;
  if (query || form) message += `?${query}`;
  if (query && form) message += '.';
  message += `${form}.${nonce}`;
  return createHmac('sha256', authToken).update(message).digest('base64');
}

/**
 * A stand-in for Plivo's Voice API and its requests, speaking the documented shapes: POST
 * /v1/Account/{auth_id}/Call/ (JSON, HTTP Basic with the Auth ID and token) answers 201 with
 * `request_uuid`; DELETE …/Call/{call_uuid}/ hangs up and DELETE …/Request/{request_uuid}/
 * cancels (204, or 404 when there is nothing to end); POST …/Call/{call_uuid}/ with `legs=aleg`
 * and `aleg_url` transfers (202). It then calls the app back as Plivo does: form-encoded POSTs
 * signed with X-Plivo-Signature-V3 and its nonce, ring_url when ringing, answer_url once
 * answered (after machine detection, with `Machine`), the returned XML run (`<Stream>` opens a
 * real audio stream to the media process, `<Dial><Number>` rings the team line and reports to
 * the Dial's callbackUrl, `<Hangup>` ends the call), and hangup_url with CallStatus,
 * HangupCause, Duration and the times.
 */
export class FakePlivo extends FakeCarrier<FakePlivoCall, FakePlivoScript> {
  readonly authId = `MA${randomBytes(9).toString('hex').toUpperCase()}`;
  readonly authToken = randomBytes(16).toString('hex');
  readonly creates: Record<string, unknown>[] = [];
  /** REST requests as received: method and path. */
  readonly requests: { method: string; path: string }[] = [];
  media: FakePlivoMedia | null = null;

  /** Sends a request to the app signed as Plivo signs it; `forge` signs with another token, `unsigned` sends no signature. */
  async post(publicUrl: string, params: Record<string, string>, options: { forge?: boolean; unsigned?: boolean } = {}): Promise<FakePlivoCallback> {
    const nonce = String(randomBytes(10).readBigUInt64BE());
    const signature = plivoSignatureV3(options.forge ? 'not-the-auth-token' : this.authToken, 'POST', publicUrl, params, nonce);
    const local = this.localOrigin ? publicUrl.replace(this.publicOrigin, this.localOrigin) : publicUrl;
    const res = await fetch(local, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(options.unsigned ? {} : { 'x-plivo-signature-v3': signature, 'x-plivo-signature-v3-nonce': nonce, 'x-plivo-signature-ma-v3': signature }),
      },
      body: new URLSearchParams(params).toString(),
    });
    const delivered = { url: publicUrl, params, status: res.status, body: await res.text() };
    this.callbacks.push(delivered);
    return delivered;
  }

  /**
   * A person calls one of the app's numbers: Plivo requests the application's answer URL
   * (signed) and runs the XML; the caller hangs up after `talkMs`, reported to the hangup URL.
   */
  async placeInbound(input: { from: string; to: string; answerPath: string; hangupPath: string; talkMs?: number }): Promise<{ call: FakePlivoCall; answer: FakePlivoCallback }> {
    const call = this.newCall({ from: input.from, to: input.to, direction: 'inbound', requestUuid: null, params: { hangup_url: `${this.publicOrigin}${input.hangupPath}` } });
    call.status = 'ringing';
    const answer = await this.post(`${this.publicOrigin}${input.answerPath}`, this.callParams(call));
    call.status = 'in-progress';
    call.answeredAt = new Date();
    this.track(this.runXml(call, answer.body));
    if (input.talkMs !== undefined) {
      this.track(
        (async () => {
          await sleep(input.talkMs!);
          if (call.status === 'in-progress' && call.xml.length === 1) await this.finish(call, 'completed', 'NORMAL_CLEARING');
        })(),
      );
    }
    return { call, answer };
  }

  private newCall(input: { from: string; to: string; direction: FakePlivoCall['direction']; requestUuid: string | null; params: Record<string, unknown> }): FakePlivoCall {
    const call: FakePlivoCall = { uuid: randomUUID(), status: 'queued', answeredAt: null, endedAt: null, xml: [], hangupCause: null, ...input };
    this.calls.set(call.uuid, call);
    return call;
  }

  protected override closeStreamOnStop(call: FakePlivoCall): Promise<void> {
    return call.stream!.end();
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url!, 'http://fake');
    this.requests.push({ method: req.method!, path: url.pathname });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = (raw && req.headers['content-type']?.includes('json') ? JSON.parse(raw) : {}) as Record<string, unknown>;
    const reply = (status: number, payload?: unknown) => {
      if (payload === undefined) return void res.writeHead(status).end();
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ api_id: randomUUID(), ...(payload as object) }));
    };
    const expected = `Basic ${Buffer.from(`${this.authId}:${this.authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return reply(401, { error: 'authentication failed' });
    const base = `/v1/Account/${this.authId}`;
    if (url.pathname === `${base}/Call/` && req.method === 'POST') return this.create(body, reply);
    const call = url.pathname.match(new RegExp(`^${base}/Call/([0-9a-f-]{36})/$`));
    if (call && req.method === 'DELETE') return this.hangup(this.calls.get(call[1]!), reply);
    if (call && req.method === 'POST') return this.transfer(this.calls.get(call[1]!), body, reply);
    const request = url.pathname.match(new RegExp(`^${base}/Request/([0-9a-f-]{36})/$`));
    if (request && req.method === 'DELETE') return this.hangup([...this.calls.values()].find((c) => c.requestUuid === request[1]), reply, true);
    return reply(404, { error: 'not found' });
  }

  private create(body: Record<string, unknown>, reply: (status: number, payload?: unknown) => void): void {
    this.creates.push(body);
    for (const field of ['from', 'to', 'answer_url']) if (typeof body[field] !== 'string' || !body[field]) return reply(400, { error: `${field} is required` });
    if (!/^\d+$/.test(body.to as string) || !/^\d+$/.test(body.from as string)) return reply(400, { error: 'invalid number: Plivo writes numbers without +' });
    const call = this.newCall({ from: body.from as string, to: body.to as string, direction: 'outbound', requestUuid: randomUUID(), params: body });
    reply(201, { message: 'call fired', request_uuid: call.requestUuid });
    this.track(this.run(call, this.scripts.get(`+${call.to}`) ?? { kind: 'answer', talkMs: 1_000 }));
  }

  /** An outbound call's life on the network, reported as Plivo reports it. */
  private async run(call: FakePlivoCall, script: FakePlivoScript): Promise<void> {
    await sleep(20);
    if (this.stopped || call.status !== 'queued') return;
    call.status = 'ringing';
    if (typeof call.params.ring_url === 'string') await this.post(call.params.ring_url, this.callParams(call));
    await sleep(script.ringMs ?? 100);
    if (call.status !== 'ringing') return;
    if (script.kind === 'busy') return this.finish(call, 'busy', 'USER_BUSY');
    if (script.kind === 'no-answer') return this.finish(call, 'no-answer', 'NO_ANSWER');
    if (script.kind === 'failed') return this.finish(call, 'failed', script.cause);
    call.status = 'in-progress';
    call.answeredAt = new Date();
    const detection: Record<string, string> = call.params.machine_detection === 'true' ? { Machine: script.kind === 'machine' ? 'true' : 'false' } : {};
    const answer = await this.post(call.params.answer_url as string, { ...this.callParams(call), ...detection });
    if (call.status !== 'in-progress') return;
    await this.runXml(call, answer.body);
    if (script.kind === 'answer' && script.talkMs !== null) {
      await talk(script.talkMs);
      // The person hangs up, unless our side ended the call or moved it meanwhile.
      if (call.status === 'in-progress' && call.xml.length === 1) await this.finish(call, 'completed', 'NORMAL_CLEARING');
    }
  }

  /** Runs an XML document on the call: a `<Stream>` (checked as Plivo would take it), a `<Dial><Number>`, or a `<Hangup>`. */
  private async runXml(call: FakePlivoCall, xml: string): Promise<void> {
    call.xml.push(xml);
    const stream = xml.match(/<Stream([^>]*)>([^<]+)<\/Stream>/);
    if (stream) return this.openStream(call, stream[1]!, stream[2]!.trim().replace(/&amp;/g, '&'));
    const dial = xml.match(/<Dial([^>]*)><Number>(\d+)<\/Number><\/Dial>/);
    if (dial) return this.dial(call, dial[1]!, dial[2]!);
    // <Hangup/>, <Speak> then <Hangup/>, or nothing to do: the call ends.
    if (call.status === 'in-progress' || call.status === 'ringing') await this.finish(call, 'completed', /reason="rejected"/.test(xml) ? 'CALL_REJECTED' : 'NORMAL_CLEARING');
  }

  private async openStream(call: FakePlivoCall, attributes: string, url: string): Promise<void> {
    const attr = (name: string) => attributes.match(new RegExp(`${name}="([^"]*)"`))?.[1];
    // What the bridge needs from the element: both ways, held open by the stream, mu-law at 8 kHz.
    if (attr('bidirectional') !== 'true' || attr('keepCallAlive') !== 'true' || attr('contentType') !== 'audio/x-mulaw;rate=8000' || !/^wss?:\/\//.test(url)) {
      return this.finish(call, 'completed', 'NORMAL_CLEARING');
    }
    if (!this.media) return;
    const local = `${new URL(this.media.localUrl).origin.replace(/^http/, 'ws')}${new URL(url).pathname}`;
    const nonce = String(randomBytes(10).readBigUInt64BE());
    let stream: PlivoStreamClient;
    try {
      stream = await PlivoStreamClient.connect(
        local,
        { callUuid: call.uuid, accountId: this.authId, extraHeaders: (attr('extraHeaders') ?? '').replace(/,/g, ';') },
        { 'x-plivo-signature-v3': plivoSignatureV3(this.authToken, 'GET', url, {}, nonce), 'x-plivo-signature-v3-nonce': nonce },
      );
    } catch {
      // The stream could not open: with nothing after it in the XML, the call hangs up.
      if (call.status === 'in-progress' && !this.stopped) await this.finish(call, 'completed', 'NORMAL_CLEARING');
      return;
    }
    call.stream = stream;
    const running = call.xml.length;
    this.track(
      stream.closed.then(async () => {
        if (call.status === 'in-progress' && call.xml.length === running && !this.stopped) await this.finish(call, 'completed', 'NORMAL_CLEARING');
      }),
    );
    await this.media.person?.(stream, call);
  }

  private hangup(call: FakePlivoCall | undefined, reply: (status: number, payload?: unknown) => void, cancel = false): void {
    const live = call && (call.status === 'queued' || call.status === 'ringing' || call.status === 'in-progress');
    if (!call || !live) return reply(404, { error: cancel ? 'request not found' : 'call not found' });
    reply(204);
    this.track(this.finish(call, call.status === 'in-progress' ? 'completed' : 'cancel', call.status === 'in-progress' ? 'NORMAL_CLEARING' : 'ORIGINATOR_CANCEL'));
  }

  private transfer(call: FakePlivoCall | undefined, body: Record<string, unknown>, reply: (status: number, payload?: unknown) => void): void {
    if (!call || call.status !== 'in-progress') return reply(404, { error: 'call not found' });
    if (body.legs !== 'aleg' || typeof body.aleg_url !== 'string') return reply(400, { error: 'aleg_url is required for legs=aleg' });
    reply(202, { message: 'call transferred', call_uuids: [call.uuid] });
    this.track(
      (async () => {
        // The call leaves its XML: its stream closes, and the aleg_url's XML runs.
        call.xml.push('(transferred)');
        await call.stream?.end();
        const next = await this.post(body.aleg_url as string, this.callParams(call));
        await this.runXml(call, next.body);
      })(),
    );
  }

  /** `<Dial callbackUrl><Number>`: the team line answers (DialAction=answer), talks `talkMs`, hangs up, and the call ends. */
  private async dial(parent: FakePlivoCall, attributes: string, number: string): Promise<void> {
    const callback = attributes.match(/callbackUrl="([^"]+)"/)?.[1]?.replace(/&amp;/g, '&');
    const script = this.scripts.get(`+${number}`) ?? { kind: 'answer', talkMs: 500 };
    const leg = randomUUID();
    await sleep(script.ringMs ?? 50);
    if (script.kind !== 'answer' || parent.status !== 'in-progress') return;
    const report = (action: string) =>
      callback ? this.post(callback, { ...this.callParams(parent), DialAction: action, DialALegUUID: parent.uuid, DialBLegUUID: leg, DialBLegStatus: action, DialBLegTo: number }) : Promise.resolve(null);
    await report('answer');
    if (script.talkMs === null) return;
    await talk(script.talkMs);
    await report('hangup');
    if (parent.status === 'in-progress') await this.finish(parent, 'completed', 'NORMAL_CLEARING');
  }

  /** The call ends: its stream closes first, then its hangup_url hears of it. */
  private async finish(call: FakePlivoCall, status: FakePlivoCall['status'], cause: string): Promise<void> {
    if (call.endedAt) return;
    call.status = status;
    call.endedAt = new Date();
    call.hangupCause = cause;
    await call.stream?.end();
    if (typeof call.params.hangup_url === 'string' && !this.stopped) await this.post(call.params.hangup_url, this.hangupParams(call));
  }

  /** The parameters of every Plivo voice request. */
  private callParams(call: FakePlivoCall): Record<string, string> {
    return {
      CallUUID: call.uuid,
      CallStatus: call.status,
      Direction: call.direction,
      From: call.from,
      To: call.to,
      Event: call.status === 'ringing' ? 'Ring' : 'StartApp',
      ...(call.requestUuid ? { RequestUUID: call.requestUuid, ALegUUID: call.uuid, ALegRequestUUID: call.requestUuid } : {}),
    };
  }

  hangupParams(call: FakePlivoCall): Record<string, string> {
    const duration = call.answeredAt && call.endedAt ? Math.round((call.endedAt.getTime() - call.answeredAt.getTime()) / 1000) : 0;
    return {
      ...this.callParams(call),
      Event: 'Hangup',
      HangupCause: call.hangupCause ?? 'NORMAL_CLEARING',
      Duration: String(duration),
      BillDuration: String(duration),
      StartTime: plivoTime(call.answeredAt ?? call.endedAt ?? new Date()),
      ...(call.answeredAt ? { AnswerTime: plivoTime(call.answeredAt) } : {}),
      EndTime: plivoTime(call.endedAt ?? new Date()),
    };
  }
}
