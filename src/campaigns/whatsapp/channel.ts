import { MESSAGE_BOUNDS } from '../../domain/sendWindow';
import { allowanceLeft, resolveSender } from '../../messaging';
import { startWorkflow } from '../../temporal/startWorkflow';
import type { ChannelRegistration } from '../channelRegistration';
import { CAMPAIGN_HOLD_POLL_MS, campaignRunDefinition } from '../contracts';

/** WhatsApp campaigns (`whatsapp_broadcast`): the message run sends a template to each person through messaging. */
export const whatsappChannel: ChannelRegistration = {
  type: 'whatsapp_broadcast',
  label: 'WhatsApp',
  required: { field: 'template', reason: 'template_not_found', message: 'A WhatsApp campaign needs a template.' },
  ownFields: ['template', 'sender_id'],
  windowBounds: MESSAGE_BOUNDS,
  ownSchedule: () => ({}),

  classifyOptions: () => ({}),
  readReadiness: async (db, campaign) => {
    const sender = await resolveSender(db, campaign.tenant_id, campaign.sender_id);
    return { senderProblem: sender.ok ? null : sender.message, voice: null };
  },

  planFeature: 'the WhatsApp channel',
  planIncludes: (plan) => plan.chat_channel,
  allowanceRefusal: (workspace) =>
    allowanceLeft(workspace.plan)
      ? null
      : { message: "The plan's conversations for this month are used up and there are no prepaid credits.", fix: 'Buy prepaid credits or wait for the monthly allowance.' },

  startRun: (temporal, options, input) => startWorkflow(temporal, campaignRunDefinition, { ...options, args: [{ ...input, nextSendAtMs: null }] }),
  // The run skips everyone outstanding and counts them as it stops its batch: a cancel's answer waits for that count.
  cancelWaitsForFinalCount: true,

  holdsLivePlaces: false,
  holdPollMs: CAMPAIGN_HOLD_POLL_MS,
  words: {
    unit: ['message', 'messages'],
    window: 'send',
    toDo: 'send to',
    done: 'sent to',
    doing: 'Sending',
    etaCaveat: '',
    settled: 'Settling: every message has gone out; the last statuses are being counted before it completes.',
    afterCompletion: ['Delivery and read statuses that arrive late are still counted for a day.'],
    tally: (c) => `${c.sent} sent, ${c.delivered} delivered, ${c.read} read, ${c.failed} failed, ${c.skipped} skipped`,
  },
  countsCalls: false,
};
