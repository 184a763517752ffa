import { z } from 'zod';
import { dueTemplateRequest, ensurePaymentLink, findDue, formatRupees, isOpen, personDues, readDuesSettings, type DueDoc } from '../../dues';
import { agentToolSendIntentKey, SendOutcomeUnknown, SendRefusal, sendWhatsAppMessage } from '../../messaging';
import { customerOf, failed, type BuiltInToolDefinition, type BuiltInToolDeps } from './builtInTool';

const noArgs = z.object({}).strict();

function dueOutput(due: DueDoc) {
  return {
    due_id: due._id,
    period: due.period_label,
    amount: `Rs ${formatRupees(due.amount)}`,
    due_date: due.due_date,
    status: due.status,
    open: isOpen(due.status),
    has_payment_link: due.payment_link !== null,
  };
}

/** The dues of the person the agent talks to (the dues app's subscriber on their number). */
export const readDues: BuiltInToolDefinition<z.infer<typeof noArgs>> = {
  name: 'read_dues',
  description: "Read the person's dues with the business (the amounts they owe and have paid), for the number they are calling or writing from.",
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  args: noArgs,
  kind: 'lookup',
  async run(deps, context) {
    const customer = customerOf(context, 'read_dues', 'lookup');
    if (!('phone' in customer)) return customer;
    const found = await personDues(deps.db, context.tenantId, customer.phone);
    if (!found) return { ok: true, output: { subscriber: false, dues: [] }, trail: { kind: 'lookup', text: `Looked up the dues of ${customer.phone}: not a subscriber` } };
    const open = found.dues.filter((due) => isOpen(due.status));
    return {
      ok: true,
      output: {
        subscriber: true,
        name: found.subscriber.name,
        plan: found.subscriber.plan_name,
        outstanding: `Rs ${formatRupees(found.subscriber.outstanding_total)}`,
        dues: found.dues.map(dueOutput),
      },
      trail: {
        kind: 'lookup',
        text: `Looked up the dues of ${customer.phone}: ${open.length} open, Rs ${formatRupees(found.subscriber.outstanding_total)} outstanding`,
        detail: { subscriber_id: found.subscriber._id, due_ids: found.dues.map((due) => due._id) },
      },
    };
  },
};

const linkArgs = z.object({ due_id: z.string().min(1).max(64) }).strict();

/**
 * The due's payment link, sent to the person on WhatsApp: as text inside the 24-hour window,
 * else as the dues app's reminder template (whose `pay_to` carries the link), since free text
 * may not go outside it. Only the person's own open dues: a due of another number is not found.
 * Each send is keyed by the tool run (agentToolSendIntentKey), so a retried run sends nothing twice.
 */
export const sendPaymentLink: BuiltInToolDefinition<z.infer<typeof linkArgs>> = {
  name: 'send_payment_link',
  description: "Send the person a payment link for one of their open dues on WhatsApp. Use the due_id from read_dues.",
  parameters: {
    type: 'object',
    properties: { due_id: { type: 'string', description: 'The due to pay, from read_dues.' } },
    required: ['due_id'],
    additionalProperties: false,
  },
  args: linkArgs,
  kind: 'tool',
  async run(deps, context, given) {
    const customer = customerOf(context, 'send_payment_link', 'tool');
    if (!('phone' in customer)) return customer;
    const due = await findDue(deps.db, context.tenantId, given.due_id);
    if (!due || due.phone !== customer.phone) {
      return failed('I could not find that due for this person.', { kind: 'tool', text: `send_payment_link: ${given.due_id} is not a due of ${customer.phone}` });
    }
    const linked = await ensurePaymentLink({ db: deps.db, payments: deps.payments, now: () => context.now }, due);
    if (linked.kind === 'closed') return failed(`That due is already ${due.status}; there is nothing to pay.`, { kind: 'tool', text: `send_payment_link: ${due._id} is ${due.status}` });
    if (linked.kind === 'refused') {
      return failed('The payment link could not be made; the team will follow up.', { kind: 'tool', text: `send_payment_link: the gateway refused ${due._id}: ${linked.link.message}` });
    }
    const sent = await sendLink(deps, context.runKey, linked.due);
    if (!sent.ok) return failed(sent.words, { kind: 'tool', text: `send_payment_link: not sent to ${customer.phone}: ${sent.why}` });
    return {
      ok: true,
      output: { sent: true, due_id: due._id, amount: `Rs ${formatRupees(due.amount)}`, by: sent.as },
      trail: { kind: 'tool', text: `Sent the payment link for ${due.period_label} (Rs ${formatRupees(due.amount)}) to ${customer.phone} on WhatsApp as ${sent.as}`, detail: { due_id: due._id, message_id: sent.messageId } },
    };
  },
};

type Sent = { ok: true; as: 'text' | 'template'; messageId: string } | { ok: false; words: string; why: string };

async function sendLink(deps: BuiltInToolDeps, runKey: string, due: DueDoc): Promise<Sent> {
  const send = { db: deps.db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now: () => new Date() };
  const base = { tenantId: due.tenant_id, to: due.phone, metadata: { due_id: due._id } };
  try {
    const text = `Here is your payment link for ${due.period_label} (Rs ${formatRupees(due.amount)}): ${due.payment_link}`;
    const result = await sendWhatsAppMessage(send, { ...base, text, intentKey: agentToolSendIntentKey(due.tenant_id, runKey, 'text') });
    return { ok: true, as: 'text', messageId: result.message_id };
  } catch (err) {
    if (!(err instanceof SendRefusal && err.reason === 'session_window_closed')) return notSent(err);
  }
  try {
    const settings = await readDuesSettings(deps.db, due.tenant_id);
    const template = await dueTemplateRequest(deps.db, due, settings.template, settings);
    const result = await sendWhatsAppMessage(send, { ...base, template, intentKey: agentToolSendIntentKey(due.tenant_id, runKey, 'template') });
    return { ok: true, as: 'template', messageId: result.message_id };
  } catch (err) {
    return notSent(err);
  }
}

/** A refusal in words the agent can say; anything else is the wrapper's failure. */
export function notSent(err: unknown): { ok: false; words: string; why: string } {
  if (err instanceof SendRefusal) return { ok: false, words: `The WhatsApp message could not be sent: ${err.message}`, why: err.reason };
  if (err instanceof SendOutcomeUnknown) return { ok: false, words: 'I am not sure the WhatsApp message went out; the team will check.', why: 'outcome_unknown' };
  throw err;
}
