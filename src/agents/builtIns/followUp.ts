import { z } from 'zod';
import { agentToolSendIntentKey, sendWhatsAppMessage } from '../../messaging';
import { customerOf, failed, type BuiltInToolDefinition } from './builtInTool';
import { notSent } from './dues';

const args = z
  .object({
    text: z.string().trim().min(1).max(4_096).optional(),
    template: z
      .object({ name: z.string().min(1).max(512), language: z.string().max(15).optional(), variables: z.array(z.string().max(1_024)).max(20).optional() })
      .strict()
      .optional(),
  })
  .strict()
  .refine((given) => (given.text === undefined) !== (given.template === undefined), { message: 'give exactly one of text and template' });

/**
 * A WhatsApp message to the person (a summary after a call, what they asked to receive),
 * through POST /messages's use case with all its rules: free text only inside the 24-hour
 * window, else an approved template; opt-outs, the allowance. Keyed by the tool run, so a
 * retried run sends once.
 */
export const sendWhatsAppFollowUp: BuiltInToolDefinition<z.infer<typeof args>> = {
  name: 'send_whatsapp_follow_up',
  description:
    'Send the person a WhatsApp message, e.g. a summary after this call. Free `text` can only be sent within 24 hours of their last WhatsApp message; otherwise use an approved `template` by name with its variables.',
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'The message (WhatsApp formatting).' },
      template: {
        type: 'object',
        properties: { name: { type: 'string' }, language: { type: 'string' }, variables: { type: 'array', items: { type: 'string' } } },
        required: ['name'],
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  args,
  kind: 'tool',
  async run(deps, context, given) {
    const customer = customerOf(context, 'send_whatsapp_follow_up', 'tool');
    if (!('phone' in customer)) return customer;
    let messageId: string;
    try {
      const sent = await sendWhatsAppMessage(
        { db: deps.db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now: () => new Date() },
        {
          tenantId: context.tenantId,
          to: customer.phone,
          ...(given.text !== undefined ? { text: given.text } : { template: given.template! }),
          metadata: context.callId ? { call_id: context.callId } : {},
          intentKey: agentToolSendIntentKey(context.tenantId, context.runKey, 'follow_up'),
        },
      );
      messageId = sent.message_id;
    } catch (err) {
      const refused = notSent(err);
      return failed(refused.words, { kind: 'tool', text: `send_whatsapp_follow_up: not sent to ${customer.phone}: ${refused.why}` });
    }
    const what = given.text !== undefined ? `"${given.text.length > 80 ? `${given.text.slice(0, 79)}…` : given.text}"` : `template ${given.template!.name}`;
    return { ok: true, output: { sent: true, message_id: messageId }, trail: { kind: 'tool', text: `Sent a WhatsApp follow-up to ${customer.phone}: ${what}`, detail: { message_id: messageId } } };
  },
};
