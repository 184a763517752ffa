import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../../db/collections';
import type { CampaignDoc } from '../campaign';

/** What a call campaign's launch needs beyond its audience (the POST /calls guards that concern everyone alike). */
export interface VoiceReadiness {
  configured: boolean;
  /** Active numbers of the workspace (digits). */
  activeNumbers: string[];
  /** The active numbers the campaign's agent is deployed to, first created first: the first is its caller ID. */
  agentNumbers: string[];
}

/** The workspace's active numbers and those the campaign's agent is deployed to (point-free: a workspace has few numbers). */
export async function readVoiceReadiness(db: Db, campaign: CampaignDoc, workspace: WorkspaceDoc): Promise<VoiceReadiness> {
  const numbers = await collections(db).phoneNumbers.find({ tenant_id: workspace._id, active: true }).sort({ created_at: 1, _id: 1 }).toArray();
  return {
    configured: workspace.capabilities.voice_configured,
    activeNumbers: numbers.map((n) => n._id),
    agentNumbers: numbers.filter((n) => n.agent_id !== null && n.agent_id === campaign.agent_id).map((n) => n._id),
  };
}
