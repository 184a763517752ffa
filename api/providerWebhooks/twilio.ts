import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import type { Db } from 'mongodb';
import twilio from 'twilio';
import { acceptInboundLineCall } from '../../src/calls/line/inboundLine';
import { answerLineCall, reportLineStatus, reportTransferLeg, type ReportedCall } from '../../src/calls/line/lineReports';
import type { Config } from '../../src/config';
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

function answerTwiml(ctx: Context, twiml: string): void {
  ctx.type = 'text/xml';
  ctx.body = twiml;
}

/**
 * Twilio's webhooks for calls on real lines (VOICE_PROVIDER=twilio; docs/voice.md). This
 * adapter only translates: it reads Twilio's signed form into the line policy's neutral
 * terms (src/calls/line/lineReports.ts, inboundLine.ts) and renders the decision as TwiML or
 * the JSON `status`.
 *
 * - `status`: a call's progress, mapped onto the call workflow's line events with Twilio's
 *   own time (lineStatus.ts); a machine that answered is hung up. A callback for a call
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

  /** The call a request is about, in the line policy's terms: our id from its URL, else (a number's own callbacks) the CallSid. */
  function reportedCall(ctx: Context, params: TwilioParams): ReportedCall {
    return { callId: typeof ctx.query.call_id === 'string' ? ctx.query.call_id : null, providerCallId: params.CallSid || null };
  }

  router.post(TWILIO_WEBHOOK_PATHS.status, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const status = await reportLineStatus(
      { db: deps.db, temporal: deps.temporal, lineControl: line! },
      {
        ...reportedCall(ctx, params),
        childLeg: Boolean(params.ParentCallSid),
        event: lineEventFromStatus(params),
        machineAnswered: params.CallStatus === 'in-progress' && answeredByMachine(params),
      },
    );
    ctx.body = { status };
  });

  router.post(TWILIO_WEBHOOK_PATHS.answer, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const decision = await answerLineCall(deps, { ...reportedCall(ctx, params), answeredByMachine: answeredByMachine(params) });
    answerTwiml(ctx, decision.kind === 'stream' ? streamTwiml(settings!, decision.callId) : hangupTwiml());
  });

  router.post(TWILIO_WEBHOOK_PATHS.transfer, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    ctx.body = { status: await reportTransferLeg(deps, reportedCall(ctx, params).callId, lineEventFromTransfer(params)) };
  });

  router.post(TWILIO_WEBHOOK_PATHS.voice, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const decision = await acceptInboundLineCall(
      { db: deps.db, temporal: deps.temporal, config: deps.config, now },
      { provider: 'twilio', providerCallId: params.CallSid ?? null, from: params.From ?? '', to: params.To ?? '' },
    );
    if (decision.kind === 'reject') return answerTwiml(ctx, rejectTwiml());
    if (decision.kind === 'unavailable') return answerTwiml(ctx, unavailableTwiml());
    answerTwiml(ctx, streamTwiml(settings!, decision.callId));
  });
  return router;
}
