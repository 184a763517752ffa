import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeCarrier, type FakeCallback } from './fakeCarrier';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { MediaStreamClient } from './mediaStreamClient';

/**
 * What the far end does with a call to one destination (FakeTwilio.script):
 * - `answer`: picked up by a person after `ringMs`; hangs up after `talkMs` (a promise: once it
 *   settles, for a test that must see the call live first whatever the machine's load; null:
 *   stays until our side ends or hands over the call);
 * - `machine`: picked up by a voicemail (answering-machine detection says `machine_start`);
 * - `busy`, `no-answer`: never answered (no-answer after `ringMs`, standing in for the ring timeout);
 * - `failed`: the far network refuses with a SIP code (404 a number that does not exist, 603
 *   declined, 503 congestion, 480 unavailable);
 * - `refuse`: the REST API refuses to create the call (400 with Twilio's error code).
 */
export type FakeLineScript =
  | { kind: 'answer'; ringMs?: number; talkMs: Talk | null }
  | { kind: 'machine'; ringMs?: number }
  | { kind: 'busy'; ringMs?: number }
  | { kind: 'no-answer'; ringMs?: number }
  | { kind: 'failed'; sip: number; ringMs?: number }
  | { kind: 'refuse'; code: number; message: string };

export interface FakeCall {
  sid: string;
  to: string;
  from: string;
  direction: 'outbound-api' | 'inbound';
  status: 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'failed' | 'no-answer' | 'canceled';
  params: Record<string, string>;
  dateCreated: Date;
  answeredAt: Date | null;
  endedAt: Date | null;
  answeredBy: string | null;
  /** The TwiML the call ran when answered (from the answer URL, or an update). */
  twiml: string[];
  /** The media stream of its `<Connect><Stream>`, when FakeTwilio.media is set. */
  stream?: MediaStreamClient;
  /** The call id of the stream a stand-in bridge took (FakeTwilio.standInBridge), until it ends. */
  standInStream?: string;
}

/**
 * What a media bridge notes on the line call (src/calls/line/lineCalls.ts markMedia) when it takes
 * a call's stream and when the stream ends, for tests that play the line without running the
 * media process: a completed call no bridge noted reads `setup_error` (the agent was missing).
 */
export type StandInBridge = (callId: string, what: 'started' | 'ended') => Promise<void>;

/**
 * Where a `<Connect><Stream>` is opened (the media process, on loopback) and the person's part
 * on it (what they say, played through the stream as Twilio carries a caller's audio).
 */
export interface FakeMedia {
  /** The media process on loopback; the stream opens there on the TwiML URL's path (a proxy keeping the path). */
  localUrl: string;
  person?: (stream: MediaStreamClient, call: FakeCall) => Promise<void>;
}

export type { FakeCallback };

const RFC2822_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const RFC2822_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Twilio's date format (RFC 2822, UTC): `Wed, 25 Nov 2026 19:08:06 +0000`. */
export function rfc2822(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${RFC2822_DAYS[at.getUTCDay()]}, ${pad(at.getUTCDate())} ${RFC2822_MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} +0000`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long the person stays on the line once answered: milliseconds, or until a promise settles. */
type Talk = number | Promise<unknown>;
const talk = (talkMs: Talk) => (typeof talkMs === 'number' ? sleep(talkMs) : talkMs.catch(() => undefined));
const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

/**
 * A stand-in for Twilio's REST API and its webhooks, speaking the real shapes: POST
 * /2010-04-01/Accounts/{AccountSid}/Calls.json (form-encoded, HTTP Basic with the account SID
 * and auth token) answers 201 with the Call resource; POST …/Calls/{CallSid}.json updates one
 * (Status=completed hangs up, Twiml runs a `<Dial><Number>` hand-over); GET …/Calls.json lists
 * with To/From filters. It then calls the app back as Twilio does: form-encoded POSTs signed
 * with X-Twilio-Signature (the auth token's HMAC over the public URL and the parameters),
 * status callbacks with Twilio's parameters and `Timestamp`, and the answer URL for TwiML.
 * The app's public origin (TWILIO_PUBLIC_URL) is signed as is and delivered to the local
 * server, as a tunnel or load balancer in front of the app would.
 */
export class FakeTwilio extends FakeCarrier<FakeCall, FakeLineScript> {
  readonly accountSid = `AC${randomBytes(16).toString('hex')}`;
  readonly authToken = randomBytes(16).toString('hex');
  /** Every create request, in order (a retried originate must add one only). */
  readonly creates: Record<string, string>[] = [];
  /** Set: an answered call's `<Connect><Stream>` opens a real media stream (null: the TwiML is only kept). */
  media: FakeMedia | null = null;
  /** Without `media`: a stand-in bridge notes each `<Connect><Stream>` taken and ended (null: no bridge at all). */
  standInBridge: StandInBridge | null = null;
  private gate: Promise<void> | null = null;

  /**
   * A person calls one of the app's numbers: Twilio requests the number's voice URL (signed)
   * and runs the TwiML it answers; the caller hangs up after `talkMs` (the number's status
   * callback, when given, reports it).
   */
  async placeInbound(input: { from: string; to: string; voicePath: string; statusPath?: string; talkMs?: number }): Promise<{ call: FakeCall; answer: FakeCallback }> {
    const call: FakeCall = {
      sid: sid('CA'),
      to: input.to,
      from: input.from,
      direction: 'inbound',
      status: 'ringing',
      params: {},
      dateCreated: new Date(),
      answeredAt: null,
      endedAt: null,
      answeredBy: null,
      twiml: [],
    };
    this.calls.set(call.sid, call);
    const answer = await this.post(`${this.publicOrigin}${input.voicePath}`, this.callParams(call, 'ringing'));
    call.twiml.push(answer.body);
    if (/<Connect>/.test(answer.body)) {
      call.status = 'in-progress';
      call.answeredAt = new Date();
      if (input.statusPath) call.params.StatusCallback = `${this.publicOrigin}${input.statusPath}`;
      this.track(this.takeStream(call, answer.body));
      if (input.statusPath && input.talkMs !== undefined) {
        this.track(
          (async () => {
            await sleep(input.talkMs!);
            if (call.status !== 'in-progress') return;
            this.end(call, 'completed');
            await this.stopStream(call);
            await this.post(`${this.publicOrigin}${input.statusPath}`, this.statusParams(call));
          })(),
        );
      }
    } else {
      this.end(call, /<Reject/.test(answer.body) ? 'busy' : 'completed');
    }
    return { call, answer };
  }

  /** Holds back every request to the app (Twilio slow to call back) until the answered function is called. */
  hold(): () => void {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    this.gate = gate;
    return () => {
      if (this.gate === gate) this.gate = null;
      open();
    };
  }

  /** Sends a request to the app signed as Twilio signs it; `forge` signs with another token. */
  async post(publicUrl: string, params: Record<string, string>, options: { forge?: boolean; unsigned?: boolean } = {}): Promise<FakeCallback> {
    if (this.gate) await this.gate;
    const signature = getExpectedTwilioSignature(options.forge ? 'not-the-auth-token' : this.authToken, publicUrl, params);
    const local = this.localOrigin ? publicUrl.replace(this.publicOrigin, this.localOrigin) : publicUrl;
    const res = await fetch(local, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        'i-twilio-idempotency-token': randomBytes(8).toString('hex'),
        ...(options.unsigned ? {} : { 'x-twilio-signature': signature }),
      },
      body: new URLSearchParams(params).toString(),
    });
    const delivered = { url: publicUrl, params, status: res.status, body: await res.text() };
    this.callbacks.push(delivered);
    return delivered;
  }

  protected override closeStreamOnStop(call: FakeCall): Promise<void> {
    return call.stream!.drop();
  }

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url!, 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    // A list parameter (StatusCallbackEvent) comes as the key repeated: kept space-separated.
    const form: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) form[key] = key in form ? `${form[key]} ${value}` : value;
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const error = (status: number, code: number, message: string) =>
      reply(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return error(401, 20003, 'Authenticate');
    const base = `/2010-04-01/Accounts/${this.accountSid}/Calls`;
    if (url.pathname === `${base}.json` && req.method === 'POST') return this.create(form, reply, error);
    if (url.pathname === `${base}.json` && req.method === 'GET') {
      const to = url.searchParams.get('To');
      const from = url.searchParams.get('From');
      const pageSize = Number(url.searchParams.get('PageSize') ?? 50);
      const calls = [...this.calls.values()]
        .filter((c) => (!to || c.to === to) && (!from || c.from === from))
        .sort((a, b) => b.dateCreated.getTime() - a.dateCreated.getTime())
        .slice(0, pageSize)
        .map((c) => this.resource(c));
      return reply(200, {
        calls,
        end: calls.length - 1,
        first_page_uri: `${base}.json?PageSize=${pageSize}&Page=0`,
        next_page_uri: null,
        page: 0,
        page_size: pageSize,
        previous_page_uri: null,
        start: 0,
        uri: `${base}.json?PageSize=${pageSize}&Page=0`,
      });
    }
    const one = url.pathname.match(new RegExp(`^${base}/(CA[0-9a-f]{32})\\.json$`));
    const call = one ? this.calls.get(one[1]!) : undefined;
    if (one && !call) return error(404, 20404, `The requested resource ${url.pathname} was not found`);
    if (call && req.method === 'GET') return reply(200, this.resource(call));
    if (call && req.method === 'POST') return this.update(call, form, reply, error);
    return error(404, 20404, `The requested resource ${url.pathname} was not found`);
  }

  private create(form: Record<string, string>, reply: (status: number, body: unknown) => void, error: (status: number, code: number, message: string) => void): void {
    this.creates.push(form);
    if (!form.To) return error(400, 21201, "No 'To' number is specified");
    if (!form.From) return error(400, 21603, "A 'From' phone number is required.");
    if (!form.Url && !form.Twiml) return error(400, 21205, 'Url parameter is required.');
    const script = this.scripts.get(form.To) ?? { kind: 'answer', talkMs: 1_000 };
    if (script.kind === 'refuse') return error(400, script.code, script.message);
    const call: FakeCall = {
      sid: sid('CA'),
      to: form.To,
      from: form.From,
      direction: 'outbound-api',
      status: 'queued',
      params: form,
      dateCreated: new Date(),
      answeredAt: null,
      endedAt: null,
      answeredBy: null,
      twiml: [],
    };
    this.calls.set(call.sid, call);
    reply(201, this.resource(call));
    this.track(this.run(call, script));
  }

  /** The call's life on the network, reported as Twilio reports it. */
  private async run(call: FakeCall, script: Exclude<FakeLineScript, { kind: 'refuse' }>): Promise<void> {
    const wanted = new Set((call.params.StatusCallbackEvent ?? '').split(/[ ,]+/).filter(Boolean));
    await sleep(20);
    if (this.stopped || call.status !== 'queued') return;
    call.status = 'initiated';
    if (wanted.has('initiated')) await this.status(call);
    await sleep(20);
    if (call.status !== 'initiated') return;
    call.status = 'ringing';
    if (wanted.has('ringing')) await this.status(call);
    await sleep(script.ringMs ?? 100);
    if (call.status !== 'ringing') return;
    if (script.kind === 'busy') return this.finish(call, 'busy', '486');
    if (script.kind === 'no-answer') return this.finish(call, 'no-answer', '487');
    if (script.kind === 'failed') return this.finish(call, 'failed', String(script.sip));
    call.status = 'in-progress';
    call.answeredAt = new Date();
    call.answeredBy = script.kind === 'machine' ? 'machine_start' : 'human';
    if (wanted.has('answered')) await this.status(call);
    if (call.status !== 'in-progress') return;
    // Synchronous machine detection done, Twilio fetches the call's TwiML with its verdict.
    const twiml = call.params.Twiml ?? (await this.post(call.params.Url!, { ...this.callParams(call, 'in-progress'), AnsweredBy: call.answeredBy })).body;
    call.twiml.push(twiml);
    if (/<Hangup\s*\/>/.test(twiml) && call.status === 'in-progress') return this.finish(call, 'completed', '200');
    if (call.status === 'in-progress') this.track(this.takeStream(call, twiml));
    if (script.kind === 'answer' && script.talkMs !== null) {
      await talk(script.talkMs);
      // The person hangs up (unless our side ended the call or handed it over meanwhile): the
      // stream stops, then the status callback reports the end.
      if (call.status === 'in-progress' && call.twiml.length === 1) {
        this.end(call, 'completed');
        await this.stopStream(call);
        await this.status(call, '200');
      }
    }
  }

  private update(call: FakeCall, form: Record<string, string>, reply: (status: number, body: unknown) => void, error: (status: number, code: number, message: string) => void): void {
    if (form.Status === 'completed' || form.Status === 'canceled') {
      const live = call.status === 'queued' || call.status === 'initiated' || call.status === 'ringing' || call.status === 'in-progress';
      if (live) {
        const final = call.status === 'in-progress' ? 'completed' : 'canceled';
        this.end(call, final);
        this.track(this.stopStream(call));
        this.track(this.status(call));
      }
      // Hanging up a call that is over changes nothing and answers the call as it is.
      return reply(200, this.resource(call));
    }
    if (form.Twiml || form.Url) {
      if (call.status !== 'in-progress') return error(400, 21220, 'Call is not in-progress. Cannot redirect.');
      call.twiml.push(form.Twiml ?? '');
      // New TwiML replaces the running <Connect>: its stream stops.
      this.track(this.stopStream(call));
      reply(200, this.resource(call));
      const dial = (form.Twiml ?? '').match(/<Number([^>]*)>([^<]+)<\/Number>/);
      if (dial) this.track(this.handOver(call, dial[2]!, dial[1]!));
      return;
    }
    return error(400, 20001, 'Nothing to update');
  }

  /** `<Dial><Number statusCallback=…>`: the team line is rung, answers, and (scripted `talkMs`) hangs up, ending the call. */
  private async handOver(parent: FakeCall, to: string, attributes: string): Promise<void> {
    const callback = attributes.match(/statusCallback="([^"]+)"/)?.[1]?.replace(/&amp;/g, '&');
    const events = attributes.match(/statusCallbackEvent="([^"]+)"/)?.[1]?.split(/[ ,]+/) ?? [];
    const script = this.scripts.get(to) ?? { kind: 'answer', talkMs: 500 };
    const child: FakeCall = {
      sid: sid('CA'),
      to,
      from: parent.from,
      direction: 'outbound-api',
      status: 'ringing',
      params: {},
      dateCreated: new Date(),
      answeredAt: null,
      endedAt: null,
      answeredBy: null,
      twiml: [],
    };
    await sleep(script.kind === 'refuse' ? 0 : (script.ringMs ?? 50));
    if (script.kind !== 'answer' || parent.status !== 'in-progress') return;
    child.status = 'in-progress';
    child.answeredAt = new Date();
    if (callback && events.includes('answered')) await this.post(callback, { ...this.statusParams(child), ParentCallSid: parent.sid });
    if (script.talkMs === null) return;
    await talk(script.talkMs);
    this.end(child, 'completed');
    if (callback && events.includes('completed')) await this.post(callback, { ...this.statusParams(child), ParentCallSid: parent.sid });
    // Nothing follows the Dial: the caller's call ends with it.
    if (parent.status === 'in-progress') await this.finish(parent, 'completed', '200');
  }

  /** A `<Connect><Stream>`'s stream taken: by the media process when `media` is set, else by the stand-in bridge, if any. */
  private async takeStream(call: FakeCall, twiml: string): Promise<void> {
    if (this.media) return this.openStream(call, twiml);
    const callId = twiml.match(/<Parameter name="callId" value="([^"]*)"\/>/)?.[1];
    if (!callId || !this.standInBridge) return;
    call.standInStream = callId;
    await this.standInBridge(callId, 'started');
  }

  /** The call's stream stops (Twilio's `stop`), before the status callback that reports the end. */
  private async stopStream(call: FakeCall): Promise<void> {
    await call.stream?.stop();
    const callId = call.standInStream;
    call.standInStream = undefined;
    if (callId) await this.standInBridge?.(callId, 'ended');
  }

  /**
   * `<Connect><Stream url><Parameter …/>`: opens the stream to the media process as Twilio
   * does, the handshake signed (X-Twilio-Signature over the stream URL as the TwiML names it),
   * `start` carrying the parameters. A stream that cannot open, or closes while the call still
   * runs it (the media process is down or went away), ends the <Connect>; with nothing after
   * it, the call completes.
   */
  private async openStream(call: FakeCall, twiml: string): Promise<void> {
    const url = twiml.match(/<Stream url="([^"]+)"/)?.[1]?.replace(/&amp;/g, '&');
    if (!url || !this.media) return;
    const parameters = Object.fromEntries([...twiml.matchAll(/<Parameter name="([^"]+)" value="([^"]*)"\/>/g)].map((m) => [m[1]!, m[2]!]));
    const local = `${new URL(this.media.localUrl).origin.replace(/^http/, 'ws')}${new URL(url).pathname}`;
    let stream: MediaStreamClient;
    try {
      stream = await MediaStreamClient.connect(local, parameters, {}, { 'x-twilio-signature': getExpectedTwilioSignature(this.authToken, url, {}) });
    } catch {
      // Nothing took the stream (the media process is down, or refused the handshake): the
      // <Connect> ends at once and, with nothing after it, so does the call.
      if (call.status === 'in-progress' && !this.stopped) await this.finish(call, 'completed', '200');
      return;
    }
    call.stream = stream;
    const twimlRunning = call.twiml.length;
    this.track(
      stream.closed.then(async () => {
        if (call.status === 'in-progress' && call.twiml.length === twimlRunning && !this.stopped) await this.finish(call, 'completed', '200');
      }),
    );
    await this.media.person?.(stream, call);
  }

  private end(call: FakeCall, status: FakeCall['status']): void {
    call.status = status;
    call.endedAt = new Date();
  }

  private async finish(call: FakeCall, status: FakeCall['status'], sipCode: string): Promise<void> {
    this.end(call, status);
    await this.status(call, sipCode);
  }

  private async status(call: FakeCall, sipCode?: string): Promise<void> {
    if (!call.params.StatusCallback || this.stopped) return;
    await this.post(call.params.StatusCallback, { ...this.statusParams(call), ...(sipCode ? { SipResponseCode: sipCode } : {}) });
  }

  /** The parameters of every Twilio voice request. */
  private callParams(call: FakeCall, status: string): Record<string, string> {
    return {
      AccountSid: this.accountSid,
      ApiVersion: '2010-04-01',
      CallSid: call.sid,
      CallStatus: status,
      Called: call.to,
      Caller: call.from,
      Direction: call.direction,
      From: call.from,
      To: call.to,
    };
  }

  /** A status callback's parameters: the call's, its status, Twilio's time of the event, the call's length once over. */
  statusParams(call: FakeCall): Record<string, string> {
    const over = call.endedAt !== null;
    return {
      ...this.callParams(call, call.status),
      CallbackSource: 'call-progress-events',
      SequenceNumber: String(this.callbacks.filter((c) => c.params.CallSid === call.sid).length),
      Timestamp: rfc2822(call.endedAt ?? call.answeredAt ?? new Date()),
      ...(call.answeredBy ? { AnsweredBy: call.answeredBy } : {}),
      ...(over ? { CallDuration: String(call.answeredAt ? Math.round((call.endedAt!.getTime() - call.answeredAt.getTime()) / 1000) : 0), Duration: '1' } : {}),
    };
  }

  /** The Call resource as the REST API answers it (snake_case JSON, RFC 2822 dates). */
  private resource(call: FakeCall): Record<string, unknown> {
    return {
      account_sid: this.accountSid,
      annotation: null,
      answered_by: call.answeredBy,
      api_version: '2010-04-01',
      caller_name: null,
      date_created: rfc2822(call.dateCreated),
      date_updated: rfc2822(call.endedAt ?? call.answeredAt ?? call.dateCreated),
      direction: call.direction,
      duration: call.endedAt && call.answeredAt ? String(Math.round((call.endedAt.getTime() - call.answeredAt.getTime()) / 1000)) : null,
      end_time: call.endedAt ? rfc2822(call.endedAt) : null,
      forwarded_from: null,
      from: call.from,
      from_formatted: call.from,
      group_sid: null,
      parent_call_sid: null,
      phone_number_sid: `PN${'0'.repeat(32)}`,
      price: null,
      price_unit: 'USD',
      sid: call.sid,
      start_time: call.answeredAt ? rfc2822(call.answeredAt) : null,
      status: call.status,
      subresource_uris: {},
      to: call.to,
      to_formatted: call.to,
      trunk_sid: null,
      uri: `/2010-04-01/Accounts/${this.accountSid}/Calls/${call.sid}.json`,
      queue_time: '0',
    };
  }
}
