/** What other features use of calls: the call record, placing a call (a call campaign places through POST /calls's use case), its refusals and results, an agent's voice settings; the voice line a telephony adapter implements (`voiceLine.ts`). */
export type { AgentVoice } from './agentVoice';
export { callCollections, type CallDoc } from './callStore';
export { readDestination } from './destination';
export { fieldEvidence, type FieldEvidence } from './evidence';
export { type CallRefusalReason, walletEmpty } from './guards';
export { placeCall } from './placeCall';
export { applySuccessRule, type FieldValue } from './result';
export { type CallLearning, type CallResult, type Capture, type CaptureDisplay, type CaptureField, type Disposition, DISPOSITIONS } from './types';
export { type LineControl, type LineEvent, OriginateRefused, type OriginateRequest, type VoiceProvider } from './voiceLine';
