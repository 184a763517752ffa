import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { VoiceStepInput, VoiceStepResult } from '../src/campaigns/contracts';
import { stepVoiceCampaign } from '../src/campaigns/voice/step';
import type { CampaignActivityDeps } from './campaigns';

/** What the WhatsApp run's activities take, less the WhatsApp provider and events; `pace` waits out the throttle's spacing between a step's calls. */
export interface VoiceCampaignActivityDeps extends Pick<CampaignActivityDeps, 'db' | 'deploymentChannels' | 'now' | 'pace'> {
  temporal: Client;
  taskQueue: string;
}

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A call campaign's run's step (src/campaigns/voice/step.ts). */
export function createVoiceCampaignActivities(deps: VoiceCampaignActivityDeps) {
  const step = { db: deps.db, temporal: deps.temporal, taskQueue: deps.taskQueue, deploymentChannels: deps.deploymentChannels, now: deps.now ?? (() => new Date()) };
  const pace = deps.pace ?? sleepMs;
  return {
    /** One step of a call campaign's run, heartbeating each position it deals with. Safe to retry (the use case says why). */
    stepVoiceCampaign: (input: VoiceStepInput): Promise<VoiceStepResult> => stepVoiceCampaign(step, input, { pace, heartbeat: (position) => Context.current().heartbeat(position) }),
  };
}

export type VoiceCampaignActivities = ReturnType<typeof createVoiceCampaignActivities>;
