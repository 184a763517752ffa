import type { CallDoc } from './callStore';

/** Labels of a `details` line that names the person the call is with. */
const NAME_LABEL = /^(name|full name|customer name|customer|contact name)$/i;

/**
 * The name a call itself carries of the person it is with, or null: a campaign call's
 * `metadata.person_name` (the recipient's name, src/campaigns/voice/step.ts), else a `details`
 * line labelled as a name (the agent confirms it on the line). The console falls back to the
 * workspace's contacts (api/console/personNames.ts); the Temporal UI's names use this alone.
 */
export function callPersonName(call: Pick<CallDoc, 'metadata' | 'detail_lines'>): string | null {
  const fromCampaign = call.metadata?.person_name;
  if (typeof fromCampaign === 'string' && fromCampaign.trim()) return fromCampaign.trim();
  const line = call.detail_lines?.find((l) => NAME_LABEL.test(l.label.trim()) && l.value.trim());
  return line ? line.value.trim() : null;
}

/** How a call's workflows are named in the Temporal UI: `Kavya (+91…)` or the number, and a line about the call. */
export function callNaming(call: Pick<CallDoc, 'to' | 'metadata' | 'detail_lines' | 'purpose' | 'direction'>): { name: string; summary: string } {
  const person = callPersonName(call);
  const name = person ? `${person} (${call.to})` : call.to;
  return { name, summary: `${call.direction === 'inbound' ? 'Call from' : 'Call to'} ${name}${call.purpose ? ` about ${call.purpose}` : ''}` };
}
