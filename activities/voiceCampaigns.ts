import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { VoiceStepInput, VoiceStepResult } from '../src/campaigns/contracts';
import { stepVoiceCampaign } from '../src/campaigns/voice/step';

export interface VoiceCampaignActivityDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  deploymentChannels: readonly string[];
  now?: () => Date;
  /** Waits between a step's calls (the throttle's spacing); tests on the time-skipping server skip it. */
  pace?: (ms: number) => Promise<void>;
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
