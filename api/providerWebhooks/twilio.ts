import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import type { Db } from 'mongodb';
import twilio from 'twilio';
import { acceptInboundCall } from '../../src/calls/acceptInboundCall';
import { originateRequestFor } from '../../src/calls/originateRequest';
import type { Config } from '../../src/config';
import { collections } from '../../src/db/collections';
import { findLineCall, findLineCallByProviderId, agentMissedTheLine, saveLineCall, type LineCallDoc } from '../../src/calls/line/lineCalls';
import { signalLineEvent } from '../../src/calls/line/signalLine';
import { answeredByMachine, lineEventFromStatus, lineEventFromTransfer, type TwilioParams } from '../../src/providers/voice/twilio/lineStatus';
import { twilioSettingsFrom, type TwilioConfig, type TwilioSettings } from '../../src/providers/voice/twilio/settings';
import { hangupTwiml, rejectTwiml, streamTwiml, unavailableTwiml } from '../../src/providers/voice/twilio/twiml';
import { TwilioVoiceProvider } from '../../src/providers/voice/twilio/twilioVoiceProvider';
import { TWILIO_WEBHOOK_PATHS } from '../../src/providers/voice/twilio/webhookUrls';
import type { RequestState } from '../context';
import { createAppRouter } from '../routerMethods';
import { PROVIDER_BODY_LIMITS, readProviderForm, TWILIO_MAX_PARAMETERS } from './providerBody';

/**
 * Reads a Twilio request after the checks every provider webhook makes (signedJson.ts): the
 * provider is configured (404 `not_configured`) and `X-Twilio-Signature` is the auth token's
 * signature of the public URL Twilio called (TWILIO_PUBLIC_URL + path + query) and the form
 * parameters (401 `invalid_signature`, nothing read further). Checked by the `twilio`
 * library's own validateRequest, which needs the form parsed: so first the body is bounded
 * (413 `too_large` past 64 KiB or 500 parameters, before parsing; providerBody.ts), and
 * a request without a signature header is refused before it is read.
 */
async function readSignedForm(ctx: Context, settings: TwilioSettings | null): Promise<TwilioParams | undefined> {
  if (!settings) {
    ctx.status = 404;
    ctx.body = { status: 'not_configured' };
    return undefined;
  }
  const signature = ctx.get('x-twilio-signature');
  const params: TwilioParams | undefined = signature ? await readProviderForm(ctx, PROVIDER_BODY_LIMITS.twilio, TWILIO_MAX_PARAMETERS) : {};
  if (!params) return undefined;
  if (!signature || !twilio.validateRequest(settings.authToken, signature, `${settings.publicUrl}${ctx.originalUrl}`, params)) {
    ctx.status = 401;
    ctx.body = { status: 'invalid_signature' };
    return undefined;
  }
  return params;
}

/**
 * How long a `completed` report waits for the media bridge to note the end of the call's
 * stream session. Twilio sends the stream's `stop` as the call ends, and the bridge notes it
 * in milliseconds; a stream still unended after this went with a killed media process.
 */
const MEDIA_END_GRACE_MS = 3_000;

function answerTwiml(ctx: Context, twiml: string): void {
  ctx.type = 'text/xml';
  ctx.body = twiml;
}

/**
 * Twilio's webhooks for calls on real lines (VOICE_PROVIDER=twilio; docs/voice.md):
 *
 * - `status`: a call's progress, mapped onto the call workflow's line events with Twilio's
 *   own time (lineStatus.ts); a machine that answered is hung up here. A callback for a call
 *   whose lifecycle is over answers 200 and changes nothing.
 * - `answer`: the TwiML for an answered outbound call, after machine detection: the media
 *   stream to the agent, or a hang-up for a machine.
 * - `transfer`: the team line's leg of a hand-over; its answer is `human_active`.
 * - `voice`: a call to one of the workspace's numbers starts the inbound lifecycle and the
 *   agent deployed to the number answers; a number that is not ours is rejected, one of ours
 *   that cannot take the call says so and hangs up (docs/decisions/README.md).
 *
 * Every step is safe to repeat, so a failure answers 500 and Twilio's retry (where it makes one) finds the same state.
 */
export function createTwilioWebhookRouter(deps: {
  config: TwilioConfig & Pick<Config, 'TEMPORAL_TASK_QUEUE'>;
  db: Db;
  temporal: Client;
  now?: () => Date;
}): Router<RequestState> {
  const router = createAppRouter();
  const settings = twilioSettingsFrom(deps.config);
  const line = settings ? new TwilioVoiceProvider(deps.db, settings) : null;
  const now = deps.now ?? (() => new Date());

  /** The line call a request is about: by the call id we put in its URL, else (a number's own callbacks) by CallSid. */
  async function lineCallOf(ctx: Context, params: TwilioParams): Promise<LineCallDoc | null> {
    const callId = typeof ctx.query.call_id === 'string' ? ctx.query.call_id : null;
    if (callId) return findLineCall(deps.db, callId);
    return params.CallSid ? findLineCallByProviderId(deps.db, params.CallSid) : null;
  }

  router.post(TWILIO_WEBHOOK_PATHS.status, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const call = await lineCallOf(ctx, params);
    if (!call) {
      ctx.body = { status: 'unknown_call' };
      return;
    }
    // The first callback may come before the originate recorded the CallSid (or after it stopped short).
    if (!call.provider_call_id && params.CallSid && !params.ParentCallSid) await line!.recordCallSid(call._id, params.CallSid);
    let event = lineEventFromStatus(params);
    // The agent was not on the line when it ended: its media went with its process while the
    // call was up, or never came (the media process was down, or refused the stream). Twilio
    // reports the call completed, but nobody hung up on an agent (docs/voice.md).
    if (event?.kind === 'ended' && event.outcome === 'caller_hangup' && !call.ended_by_us_at && (await agentMissedTheLine(deps.db, call._id, MEDIA_END_GRACE_MS))) {
      event = { ...event, outcome: 'setup_error' };
    }
    if (!event) {
      ctx.body = { status: 'ignored' };
      return;
    }
    // The call's workflow hung up and knows why: the network's report of it changes nothing.
    if (event.kind === 'ended' && call.ended_by_us_at) {
      ctx.body = { status: 'ended_by_us' };
      return;
    }
    // A machine took the call: it is told why first, so the hang-up's own report decides nothing.
    const machine = params.CallStatus === 'in-progress' && answeredByMachine(params);
    const result = await signalLineEvent(deps.temporal, call._id, event);
    if (machine) await line!.endCall(call._id);
    ctx.body = { status: result };
  });

  router.post(TWILIO_WEBHOOK_PATHS.answer, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const call = await lineCallOf(ctx, params);
    if (!call) return answerTwiml(ctx, hangupTwiml());
    if (answeredByMachine(params)) {
      await signalLineEvent(deps.temporal, call._id, { kind: 'ended', outcome: 'no_answer' });
      return answerTwiml(ctx, hangupTwiml());
    }
    answerTwiml(ctx, streamTwiml(settings!, call._id));
  });

  router.post(TWILIO_WEBHOOK_PATHS.transfer, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const callId = typeof ctx.query.call_id === 'string' ? ctx.query.call_id : null;
    const event = lineEventFromTransfer(params);
    if (!callId || !event) {
      ctx.body = { status: 'ignored' };
      return;
    }
    ctx.body = { status: await signalLineEvent(deps.temporal, callId, event) };
  });

  router.post(TWILIO_WEBHOOK_PATHS.voice, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    // A request repeated for one CallSid answers the call it already started.
    const known = params.CallSid ? await findLineCallByProviderId(deps.db, params.CallSid) : null;
    if (known) return answerTwiml(ctx, streamTwiml(settings!, known._id));
    const { phoneNumbers, workspaces } = collections(deps.db);
    const number = await phoneNumbers.findOne({ _id: (params.To ?? '').replace(/\D/g, ''), active: true });
    const workspace = number ? await workspaces.findOne({ _id: number.tenant_id }) : null;
    if (!number || !workspace) return answerTwiml(ctx, rejectTwiml());
    const at = now();
    const accepted = await acceptInboundCall(
      {
        db: deps.db,
        temporal: deps.temporal,
        config: deps.config,
        now: () => at,
        beforeStart: async (call) => {
          await saveLineCall(deps.db, {
            _id: call._id,
            tenant_id: call.tenant_id,
            provider: 'twilio',
            provider_call_id: params.CallSid ?? null,
            request: originateRequestFor(call, at.toISOString()),
            recording: call.recording,
            recording_uri: null,
            created_at: at,
          });
        },
      },
      workspace,
      { from: params.From ?? '', to_number: number._id },
    );
    if (accepted.kind === 'refused') return answerTwiml(ctx, unavailableTwiml());
    answerTwiml(ctx, streamTwiml(settings!, accepted.call._id));
  });
  return router;
}
