import type { Db } from 'mongodb';
import { agentInstructions } from '../calls/agentInstructions';
import { agentVoice, type AgentVoice } from '../calls/agentVoice';
import { collections } from '../db/collections';
import { findLineCall, type LineCallDoc } from '../calls/line/lineCalls';

/** What one bridged call needs: the call as placed, its agent's voice and limits, its number's team line. */
export interface CallContext {
  line: LineCallDoc;
  voice: AgentVoice;
  instructions: string;
  maxCallSeconds: number;
  /** Where `transfer_to_human` sends the caller; null: the agent has no such tool. */
  teamLine: string | null;
}

export class UnknownCall extends Error {
  constructor(callId: string, why: string) {
    super(`media stream for ${callId} refused: ${why}`);
    this.name = 'UnknownCall';
  }
}

/** Loads the call the media stream names (the call its stream's `start` names). */
export async function loadCallContext(db: Db, callId: string): Promise<CallContext> {
  const line = await findLineCall(db, callId);
  if (!line) throw new UnknownCall(callId, 'no line call with that id');
  const { agents, phoneNumbers } = collections(db);
  const [agent, number] = await Promise.all([
    agents.findOne({ _id: line.request.agentId, tenant_id: line.tenant_id }),
    phoneNumbers.findOne({ _id: line.request.fromNumber.replace(/\D/g, ''), tenant_id: line.tenant_id }),
  ]);
  if (!agent) throw new UnknownCall(callId, `its agent ${line.request.agentId} is gone`);
  const voice = agentVoice(agent.voice);
  const maxCallSeconds = agent.max_call_minutes * 60;
  return {
    line,
    voice,
    instructions: agentInstructions(line.request, voice, maxCallSeconds),
    maxCallSeconds,
    teamLine: number?.team_line ?? null,
  };
}
