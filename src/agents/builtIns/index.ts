import type { AgentToolSource } from '../agentTool';
import { builtInTool, type BuiltInToolDeps } from './builtInTool';
import { scheduleCallBackTool } from './callBack';
import { readDues, sendPaymentLink } from './dues';
import { findContact } from './findContact';
import { sendWhatsAppFollowUp } from './followUp';
import { openTicket } from './openTicket';

export type { BuiltInToolDeps } from './builtInTool';

/**
 * The built-in tools every agent has, on both channels: find the contact, open a ticket, read
 * the person's dues and send a payment link, schedule a call-back, send a WhatsApp follow-up.
 * (`hand_over` is the chat agent's, beside its workflow.) The composition roots build this
 * once per process with its providers and list it first among the sources.
 */
export function builtInToolSource(deps: BuiltInToolDeps): AgentToolSource {
  const tools = [
    builtInTool(deps, findContact),
    builtInTool(deps, openTicket),
    builtInTool(deps, readDues),
    builtInTool(deps, sendPaymentLink),
    builtInTool(deps, scheduleCallBackTool),
    builtInTool(deps, sendWhatsAppFollowUp),
  ];
  return async () => tools;
}
