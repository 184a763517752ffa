import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import { z } from 'zod';
import { receiveEcho, receiveInbound } from '../../../src/messaging/inbound';
import { resolveSender } from '../../../src/messaging/senders';
import {
  clearScript,
  setScript,
  simulatorScriptSchema,
  simulatorScriptsCollection,
  type SimulatorScriptDoc,
} from '../../../src/providers/whatsapp/simulatorScripts';
import type { RequestState } from '../../context';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import { bodyOf, loadWorkspace, tenantList, withWorkspaceBody, type ConsoleDeps, type Params } from '../deps';

const phone = z.string().regex(/^\+?\d{6,19}$/, 'expected + and digits');

const referral = z
  .object({
    source_type: z.string().max(40),
    source_id: z.string().max(200),
    source_url: z.string().max(2000),
    headline: z.string().max(500),
    body: z.string().max(2000),
    media_type: z.enum(['image', 'video']),
    ctwa_clid: z.string().max(500),
    image_url: z.string().max(2000),
    video_url: z.string().max(2000),
    thumbnail_url: z.string().max(2000),
  })
  .partial()
  .strict();

export const inboundBody = z
  .object({
    from: phone,
    text: z.string().min(1).max(4096),
    name: z.string().trim().min(1).max(120).optional(),
    sender_id: z.string().max(64).optional(),
    /** The provider's id for the message; a repeat with the same id changes nothing. */
    message_id: z.string().min(1).max(128).optional(),
    /** When the customer sent it (default now), e.g. to open a window that has since closed. */
    received_at: z.iso.datetime({ offset: true }).optional(),
    referral: referral.optional(),
  })
  .strict();

export const echoBody = z
  .object({
    to: phone,
    text: z.string().min(1).max(4096).optional(),
    action: z.enum(['sent', 'edited', 'deleted']).default('sent'),
    sender_id: z.string().max(64).optional(),
    message_id: z.string().min(1).max(128).optional(),
  })
  .strict();

export const scriptView = (s: SimulatorScriptDoc) => ({
  recipient: s.recipient,
  outcome: s.outcome,
  failure: s.failure,
  refuse: s.refuse,
  fail_next: s.fail_next,
  fail_kind: s.fail_kind,
  delays_ms: s.delays_ms,
  updated_at: formatTimestamp(s.updated_at),
});

const wamid = (kind: string) => `wamid.${kind}${randomBytes(12).toString('hex').toUpperCase()}`;

/**
 * WhatsApp in the console: the simulator's per-recipient scripts, and injecting what the
 * provider's webhook would otherwise bring (a customer's message, a business-app echo).
 */
export function whatsappConsoleRoutes(router: Router<RequestState>, deps: ConsoleDeps): void {
  const recipientOf = (ctx: unknown) => {
    const { recipient } = (ctx as Params<'recipient'>).params;
    if (!phone.safeParse(recipient).success) throw new ApiError('invalid_argument', 'The recipient must be + and digits.');
    return recipient;
  };

  router.put('/workspaces/:workspace_id/simulator/whatsapp/:recipient', ...withWorkspaceBody(deps, simulatorScriptSchema), async (ctx) => {
    const script = bodyOf(ctx, simulatorScriptSchema);
    ctx.body = scriptView(await setScript(deps.db, ctx.state.workspace!._id, recipientOf(ctx), script, deps.now()));
  });

  tenantList(router, deps, 'simulator/whatsapp', simulatorScriptsCollection(deps.db), scriptView, { recipient: 1 });

  router.delete('/workspaces/:workspace_id/simulator/whatsapp/:recipient', loadWorkspace(deps), async (ctx) => {
    ctx.body = { recipient: recipientOf(ctx), deleted: await clearScript(deps.db, ctx.state.workspace!._id, recipientOf(ctx)) };
  });

  async function senderFor(tenantId: string, senderId: string | undefined) {
    const sender = await resolveSender(deps.db, tenantId, senderId);
    if (!sender.ok) throw new ApiError('failed_precondition', sender.message, { reason: 'channel_not_connected' });
    return sender.sender;
  }

  router.post('/workspaces/:workspace_id/whatsapp/inbound', ...withWorkspaceBody(deps, inboundBody), async (ctx) => {
    const body = bodyOf(ctx, inboundBody);
    const tenantId = ctx.state.workspace!._id;
    const sender = await senderFor(tenantId, body.sender_id);
    const providerMessageId = body.message_id ?? wamid('IN');
    const received = await receiveInbound(deps, {
      tenantId,
      senderId: sender._id,
      senderPhone: sender.phone,
      from: body.from,
      profileName: body.name ?? null,
      providerMessageId,
      type: 'text',
      text: body.text,
      referral: body.referral ?? null,
      at: body.received_at ? new Date(body.received_at) : deps.now(),
    });
    ctx.status = 201;
    ctx.body = {
      message_id: providerMessageId,
      conversation_id: received.conversationId,
      transcript_message_id: received.messageId,
      sender_id: sender._id,
      opted_out: received.optedOut,
    };
  });

  router.post('/workspaces/:workspace_id/whatsapp/echo', ...withWorkspaceBody(deps, echoBody), async (ctx) => {
    const body = bodyOf(ctx, echoBody);
    const tenantId = ctx.state.workspace!._id;
    const sender = await senderFor(tenantId, body.sender_id);
    const providerMessageId = body.message_id ?? wamid('ECHO');
    const echoed = await receiveEcho(deps, {
      tenantId,
      senderId: sender._id,
      senderPhone: sender.phone,
      to: body.to,
      providerMessageId,
      action: body.action,
      type: 'text',
      text: body.action === 'deleted' ? null : (body.text ?? null),
      at: deps.now(),
    });
    ctx.status = 201;
    ctx.body = { message_id: providerMessageId, conversation_id: echoed.conversationId, action: body.action };
  });
}
