/** What other features use of calls: the call record, placing a call (a call campaign places through POST /calls's use case), its refusals and results, an agent's voice settings; the voice line a telephony adapter implements (`voiceLine.ts`) and the call reader a reading adapter implements (`reader.ts`). */
export type { AgentVoice } from './agentVoice';
export { callBackIdFor, placeCallBack, scheduleCallBack } from './callBack';
export { callCollections, type CallDoc } from './callStore';
export { readDestination } from './destination';
export { fieldEvidence, type FieldEvidence } from './evidence';
export { type CallRefusalReason, walletEmpty } from './guards';
export { placeCall, placeCallDeps, type WorkerPlacingDeps } from './placeCall';
export { type CallReader, READER_PERMANENT_FAILURE, READER_TEMPORARY_FAILURE, ReaderPermanentError, ReaderTemporaryError, type ReadOptions } from './reader';
export { applySuccessRule, type FieldValue } from './result';
export { type CallLearning, type CallResult, type Capture, type CaptureDisplay, type CaptureField, type Disposition, DISPOSITIONS } from './types';
export { type LineControl, type LineEvent, OriginateRefused, type OriginateRequest, type VoiceProvider } from './voiceLine';
