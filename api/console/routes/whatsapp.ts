import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { receiveEcho, receiveInbound } from '../../../src/messaging/inbound';
import { resolveSender } from '../../../src/messaging/senders';
import { clearScript, setScript, simulatorScriptSchema, simulatorScriptsCollection, type SimulatorScriptDoc } from '../../../src/providers/whatsapp/simulatorScripts';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, tenantList, workspaceParams, type ConsoleDeps } from '../deps';
import { phone, inboundBody, echoBody, echoInjected, inboundInjected, scriptDeleted, whatsappScriptRecord } from './whatsapp.schema';

export const scriptView = (s: SimulatorScriptDoc): z.infer<typeof whatsappScriptRecord> => ({
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
export function whatsappConsoleRoutes(deps: ConsoleDeps): RouteDef[] {
  const routes: RouteDef[] = [];
  routes.push(
    route({
      method: 'put',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/simulator/whatsapp/{recipient}`,
      operationId: 'putWhatsAppScript',
      summary: "Script the WhatsApp simulator for a recipient; replaces the recipient's script as a whole.",
      params: workspaceParams({ recipient: phone }),
      body: simulatorScriptSchema,
      response: { status: 200, description: 'The script.', schema: whatsappScriptRecord },
      errors: ['not_found'],
      handler: async (ctx, { params: { recipient }, body: script }) => {
        ctx.body = scriptView(await setScript(deps.db, ctx.state.workspace!._id, recipient, script, deps.now()));
      },
    }),
  );

  routes.push(tenantList('simulator/whatsapp', 'listWhatsAppScripts', simulatorScriptsCollection(deps.db), scriptView, whatsappScriptRecord, { recipient: 1 }));

  routes.push(
    route({
      method: 'delete',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/simulator/whatsapp/{recipient}`,
      operationId: 'deleteWhatsAppScript',
      summary: 'Forget the script of a recipient; it gets the default again.',
      params: workspaceParams({ recipient: phone }),
      response: { status: 200, description: '`{recipient, deleted}`.', schema: scriptDeleted },
      errors: ['not_found'],
      handler: async (ctx, { params: { recipient } }) => {
        ctx.body = { recipient, deleted: await clearScript(deps.db, ctx.state.workspace!._id, recipient) };
      },
    }),
  );

  async function senderFor(tenantId: string, senderId: string | undefined) {
    const sender = await resolveSender(deps.db, tenantId, senderId);
    if (!sender.ok) throw new ApiError('failed_precondition', sender.message, { reason: 'channel_not_connected' });
    return sender.sender;
  }

  routes.push(
    route({
      method: 'post',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/whatsapp/inbound`,
      operationId: 'injectWhatsAppInbound',
      summary: "Inject a customer's WhatsApp message as the provider's webhook would bring it.",
      params: workspaceParams({}),
      body: inboundBody,
      response: { status: 201, description: '`{message_id, conversation_id, transcript_message_id, sender_id, opted_out}`.', schema: inboundInjected },
      errors: ['not_found', 'failed_precondition'],
      handler: async (ctx, { body }) => {
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
      },
    }),
  );

  routes.push(
    route({
      method: 'post',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/whatsapp/echo`,
      operationId: 'injectWhatsAppEcho',
      summary: 'Inject a business-app echo (a message the business sent, edited or deleted from the WhatsApp Business app).',
      params: workspaceParams({}),
      body: echoBody,
      response: { status: 201, description: '`{message_id, conversation_id, action}`.', schema: echoInjected },
      errors: ['not_found', 'failed_precondition'],
      handler: async (ctx, { body }) => {
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
      },
    }),
  );
  return routes;
}
