import type { OriginateRequest } from '../providers/voice/types';
import type { AgentVoice } from './agentVoice';
import { renderCaptureForAgent } from './capture';
import { detailLine } from './details';

/**
 * The instructions a voice agent on a real line is given for one call, built from the call
 * itself (api-core §4 POST /calls): who the agent is, the fixed opening (outbound) or its
 * greeting (inbound), the purpose or script, the details to confirm before anything else,
 * the capture fields in the order to cover them, and how long it may talk.
 */
export function agentInstructions(request: OriginateRequest, voice: AgentVoice, maxCallSeconds: number): string {
  const parts: string[] = [`You are ${voice.persona}, speaking on a phone call in language "${voice.language}".`];
  if (voice.instructions.trim()) parts.push(voice.instructions.trim());
  parts.push(
    request.direction === 'outbound'
      ? `You placed this call. Open with exactly: "${request.opening}"`
      : `The person called the business. Greet them with: "${voice.greeting}"`,
  );
  if (request.detailLines.length > 0) {
    parts.push(
      'Before anything else, confirm you are speaking to the right person using these details; if they are not the person, apologise and end the call:\n' +
        request.detailLines.map((line) => `- ${detailLine(line)}`).join('\n'),
    );
  }
  if (request.purpose) parts.push(`The purpose of the call: ${request.purpose}`);
  if (request.script) parts.push(`Follow this script:\n${request.script}`);
  if (request.capture && request.capture.fields.length > 0) {
    parts.push(`Find out the following, in this order:\n${renderCaptureForAgent(request.capture)}`);
  }
  parts.push(
    `The call may last at most ${Math.floor(maxCallSeconds / 60)} minutes. When the conversation is finished, say goodbye and use the end_call tool.`,
  );
  return parts.join('\n\n');
}
