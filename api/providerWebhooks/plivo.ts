import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import type { Db } from 'mongodb';
import { validateV3Signature } from 'plivo';
import { acceptInboundLineCall } from '../../src/calls/line/inboundLine';
import { answerLineCall, reportLineStatus, reportTransferLeg, type ReportedCall } from '../../src/calls/line/lineReports';
import type { Config } from '../../src/config';
import { answeredByMachine, lineEventFromDial, lineEventFromHangup, type PlivoParams } from '../../src/providers/voice/plivo/lineStatus';
import { PlivoVoiceProvider, TRANSFER_TO_PARAM } from '../../src/providers/voice/plivo/plivoVoiceProvider';
import { dialXml, hangupXml, rejectXml, streamXml, unavailableXml } from '../../src/providers/voice/plivo/plivoXml';
import { plivoSettingsFrom, type PlivoConfig, type PlivoSettings } from '../../src/providers/voice/plivo/settings';
import { fromPlivoNumber, PLIVO_WEBHOOK_PATHS, plivoWebhookUrl } from '../../src/providers/voice/plivo/webhookUrls';
import type { RequestState } from '../context';
import { createAppRouter } from '../routerMethods';
import { PROVIDER_BODY_LIMITS, readProviderForm, SIGNED_FORM_MAX_PARAMETERS } from './providerBody';

/**
 * Reads a Plivo request after the checks every provider webhook makes (signedJson.ts, twilio.ts):
 * the provider is configured (404 `not_configured`), and `X-Plivo-Signature-V3` with
 * `X-Plivo-Signature-V3-Nonce` is the auth token's signature of the URL Plivo called
 * (PLIVO_PUBLIC_URL + path + query), the sorted form parameters and the nonce (401
 * `invalid_signature`, nothing read further), checked by the `plivo` package's own
 * validateV3Signature. The form is bounded before it is parsed (413 `too_large`), and a request
 * without the headers is refused unread.
 */
async function readSignedForm(ctx: Context, settings: PlivoSettings | null): Promise<PlivoParams | undefined> {
  if (!settings) {
    ctx.status = 404;
    ctx.body = { status: 'not_configured' };
    return undefined;
  }
  const signature = ctx.get('x-plivo-signature-v3');
  const nonce = ctx.get('x-plivo-signature-v3-nonce');
  const params: PlivoParams | undefined = signature && nonce ? await readProviderForm(ctx, PROVIDER_BODY_LIMITS.plivo, SIGNED_FORM_MAX_PARAMETERS) : {};
  if (!params) return undefined;
  if (!signature || !nonce || !validateV3Signature('POST', `${settings.publicUrl}${ctx.originalUrl}`, nonce, settings.authToken, signature, params).valueOf()) {
    ctx.status = 401;
    ctx.body = { status: 'invalid_signature' };
    return undefined;
  }
  return params;
}

function answerXml(ctx: Context, xml: string): void {
  ctx.type = 'text/xml';
  ctx.body = xml;
}

/**
 * Plivo's webhooks for calls on real lines (VOICE_PROVIDER=plivo; docs/voice.md, "Plivo"). As
 * the Twilio adapter, it only translates: Plivo's signed form into the line policy's neutral
 * terms (src/calls/line/lineReports.ts, inboundLine.ts), the decision into Plivo XML or the JSON
 * `status`.
 *
 * - `answer`: an outbound call answered, after machine detection: it is `answered` (Plivo sends
 *   no separate report of the answer), and its XML streams the call to the agent; a machine is
 *   told `no_answer` and hung up.
 * - `status`: the call's ring_url and hangup_url (and a number's application hangup URL): its
 *   CallUUID recorded, its end mapped with its hang-up cause (lineStatus.ts).
 * - `transfer`: the aleg_url of a hand-over: the XML that dials the team line.
 * - `dial`: the team line's leg (the Dial's callbackUrl); its answer is `human_active`.
 * - `voice`: a call to one of the workspace's numbers (the application's answer URL).
 *
 * Every step is safe to repeat, so a failure answers 500 and Plivo's retry finds the same state.
 */
export function createPlivoWebhookRouter(deps: { config: PlivoConfig & Pick<Config, 'TEMPORAL_TASK_QUEUE'>; db: Db; temporal: Client; now?: () => Date }): Router<RequestState> {
  const router = createAppRouter();
  const settings = plivoSettingsFrom(deps.config);
  const line = settings ? new PlivoVoiceProvider(deps.db, settings) : null;
  const now = deps.now ?? (() => new Date());

  /** The call a request is about: our id from its URL, else (a number's own callbacks) the CallUUID. */
  function reportedCall(ctx: Context, params: PlivoParams): ReportedCall {
    return { callId: typeof ctx.query.call_id === 'string' ? ctx.query.call_id : null, providerCallId: params.CallUUID || null };
  }

  router.post(PLIVO_WEBHOOK_PATHS.status, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const status = await reportLineStatus(
      { db: deps.db, temporal: deps.temporal, lineControl: line! },
      { ...reportedCall(ctx, params), childLeg: false, event: lineEventFromHangup(params, now()), machineAnswered: false },
    );
    ctx.body = { status };
  });

  router.post(PLIVO_WEBHOOK_PATHS.answer, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const call = reportedCall(ctx, params);
    const machine = answeredByMachine(params);
    if (!machine) {
      await reportLineStatus({ db: deps.db, temporal: deps.temporal, lineControl: line! }, { ...call, childLeg: false, event: { kind: 'answered', at: now().toISOString() }, machineAnswered: false });
    }
    const decision = await answerLineCall(deps, { ...call, answeredByMachine: machine });
    answerXml(ctx, decision.kind === 'stream' ? streamXml(settings!, decision.callId) : hangupXml());
  });

  router.post(PLIVO_WEBHOOK_PATHS.transfer, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const callId = reportedCall(ctx, params).callId;
    const to = ctx.query[TRANSFER_TO_PARAM];
    answerXml(ctx, callId && typeof to === 'string' && to ? dialXml(to, plivoWebhookUrl(settings!.publicUrl, 'dial', callId)) : hangupXml());
  });

  router.post(PLIVO_WEBHOOK_PATHS.dial, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    ctx.body = { status: await reportTransferLeg(deps, reportedCall(ctx, params).callId, lineEventFromDial(params, now())) };
  });

  router.post(PLIVO_WEBHOOK_PATHS.voice, async (ctx) => {
    const params = await readSignedForm(ctx, settings);
    if (!params) return;
    const decision = await acceptInboundLineCall(
      { db: deps.db, temporal: deps.temporal, config: deps.config, now },
      { provider: 'plivo', providerCallId: params.CallUUID ?? null, from: fromPlivoNumber(params.From ?? ''), to: fromPlivoNumber(params.To ?? '') },
    );
    if (decision.kind === 'reject') return answerXml(ctx, rejectXml());
    if (decision.kind === 'unavailable') return answerXml(ctx, unavailableXml());
    answerXml(ctx, streamXml(settings!, decision.callId));
  });
  return router;
}
