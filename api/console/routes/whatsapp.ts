import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { receiveEcho, receiveInbound } from '../../../src/messaging/inbound';
import { resolveSender } from '../../../src/messaging/senders';
import { clearScript, setScript, simulatorScriptSchema, simulatorScriptsCollection, type SimulatorScriptDoc } from '../../../src/providers/whatsapp/simulatorScripts';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import type { RouteDef } from '../../route';
import { tenantList, workspaceGroup, type ConsoleDeps } from '../deps';
import { phone, inboundBody, echoBody, echoInjected, inboundInjected, scriptDeleted, whatsappScriptRecord } from './whatsapp.schema';

const ws = workspaceGroup();
/** `simulator/whatsapp/{recipient}`: the simulated replies of one recipient. */
const recipientScript = ws.group({ params: { recipient: phone } });
/** Injecting what the provider's webhook would bring: 412 `channel_not_connected` without a connected sender. */
const injection = ws.group({ errors: ['failed_precondition'] });

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
    recipientScript.put('putWhatsAppScript', 'simulator/whatsapp/{recipient}', {
      summary: "Script the WhatsApp simulator for a recipient; replaces the recipient's script as a whole.",
      body: simulatorScriptSchema,
      response: { status: 200, description: 'The script.', schema: whatsappScriptRecord },
      handler: async (ctx, { params: { recipient }, body: script, tenantId }) => scriptView(await setScript(deps.db, tenantId, recipient, script, deps.now())),
    }),
  );

  routes.push(tenantList('simulator/whatsapp', 'listWhatsAppScripts', simulatorScriptsCollection(deps.db), scriptView, whatsappScriptRecord, { recipient: 1 }));

  routes.push(
    recipientScript.delete('deleteWhatsAppScript', 'simulator/whatsapp/{recipient}', {
      summary: 'Forget the script of a recipient; it gets the default again.',
      response: { status: 200, description: '`{recipient, deleted}`.', schema: scriptDeleted },
      handler: async (ctx, { params: { recipient }, tenantId }) => ({ recipient, deleted: await clearScript(deps.db, tenantId, recipient) }),
    }),
  );

  /**
   * What the provider's webhook would bring about the business side of an injected message:
   * the workspace's sender (the named one, else its default; 412 when none is connected) and
   * the provider's message id (the one given, else a new `wamid.<kind>…`).
   */
  async function asProvider(tenantId: string, given: { sender_id?: string; message_id?: string }, kind: string) {
    const resolved = await resolveSender(deps.db, tenantId, given.sender_id);
    if (!resolved.ok) throw new ApiError('failed_precondition', resolved.message, { reason: 'channel_not_connected' });
    const { sender } = resolved;
    return { tenantId, senderId: sender._id, senderPhone: sender.phone, providerMessageId: given.message_id ?? wamid(kind) };
  }

  routes.push(
    injection.post('injectWhatsAppInbound', 'whatsapp/inbound', {
      summary: "Inject a customer's WhatsApp message as the provider's webhook would bring it.",
      body: inboundBody,
      response: { status: 201, description: '`{message_id, conversation_id, transcript_message_id, sender_id, opted_out}`.', schema: inboundInjected },
      handler: async (ctx, { body, tenantId }) => {
        const provider = await asProvider(tenantId, body, 'IN');
        const received = await receiveInbound({ ...deps, taskQueue: deps.config.TEMPORAL_TASK_QUEUE }, {
          ...provider,
          from: body.from,
          profileName: body.name ?? null,
          type: 'text',
          text: body.text,
          referral: body.referral ?? null,
          at: body.received_at ? new Date(body.received_at) : deps.now(),
        });
        return {
          message_id: provider.providerMessageId,
          conversation_id: received.conversationId,
          transcript_message_id: received.messageId,
          sender_id: provider.senderId,
          opted_out: received.optedOut,
        };
      },
    }),
  );

  routes.push(
    injection.post('injectWhatsAppEcho', 'whatsapp/echo', {
      summary: 'Inject a business-app echo (a message the business sent, edited or deleted from the WhatsApp Business app).',
      body: echoBody,
      response: { status: 201, description: '`{message_id, conversation_id, action}`.', schema: echoInjected },
      handler: async (ctx, { body, tenantId }) => {
        const provider = await asProvider(tenantId, body, 'ECHO');
        const echoed = await receiveEcho(deps, {
          ...provider,
          to: body.to,
          action: body.action,
          type: 'text',
          text: body.action === 'deleted' ? null : (body.text ?? null),
          at: deps.now(),
        });
        return { message_id: provider.providerMessageId, conversation_id: echoed.conversationId, action: body.action };
      },
    }),
  );
  return routes;
}
