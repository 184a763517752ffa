import type { OriginateRequest } from './voiceLine';
import type { AgentVoice } from './agentVoice';
import { renderCaptureForAgent } from './capture';
import { detailLine } from './details';

/**
 * The instructions a voice agent on a real line is given for one call, built from the call
 * itself (api-core §4 POST /calls): who the agent is, the fixed opening (outbound) or its
 * greeting (inbound), the details to confirm before anything else, the purpose, the script
 * (its flow covered in order, never read out), the capture fields in the order to cover them,
 * and how long it may talk. Sections come in the order the agent meets them on the call.
 */
export function agentInstructions(request: OriginateRequest, voice: AgentVoice, maxCallSeconds: number): string {
  const parts: string[] = [`You are ${voice.persona}, speaking on a phone call in language "${voice.language}".`];
  if (voice.instructions.trim()) parts.push(voice.instructions.trim());
  parts.push(
    request.direction === 'outbound'
      ? // The fixed opening (api-core §4); the agent's own greeting is never used on an outbound call.
        `You placed this call. Open with exactly: "${request.opening}"`
      : `The person called the business. Greet them with: "${voice.greeting}"`,
  );
  if (request.detailLines.length > 0) {
    parts.push(
      'Before anything else, confirm you are speaking to the right person using these details; if they are not the person, apologise and end the call:\n' +
        request.detailLines.map((line) => `- ${detailLine(line)}`).join('\n'),
    );
  }
  if (request.purpose) parts.push(`The purpose of the call: ${request.purpose}`);
  if (request.script) parts.push(`Cover this flow in order, in your own words; never read it out:\n${request.script}`);
  const capture = request.capture;
  if (capture && (capture.fields.length > 0 || capture.goal)) {
    parts.push(
      capture.fields.length > 0
        ? `Find out the following, in this order:\n${renderCaptureForAgent(capture)}`
        : `What the call should achieve:\n${renderCaptureForAgent(capture)}`,
    );
  }
  parts.push(`The call may last at most ${callLength(maxCallSeconds)}. When the conversation is finished, say goodbye and use the end_call tool.`);
  return parts.join('\n\n');
}

/** "5 minutes", "1 minute", "1 minute 30 seconds", "45 seconds". */
function callLength(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (minutes === 0) return unit(rest, 'second');
  return rest === 0 ? unit(minutes, 'minute') : `${unit(minutes, 'minute')} ${unit(rest, 'second')}`;
}
