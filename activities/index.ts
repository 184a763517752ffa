import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { AgentModel, Toolbox } from '../src/agents';
import type { CallHooks } from '../src/calls/callHooks';
import type { EventPublisher } from '../src/events/publisher';
import type { CallReader } from '../src/calls/reader';
import type { PaymentLinkProvider } from '../src/dues/paymentGateway';
import type { WhatsAppProvider } from '../src/messaging/whatsAppSender';
import type { VoiceProvider } from '../src/calls/voiceLine';
import { createAgentActivities } from './agents';
import { createCallActivities } from './calls';
import { createCallBackActivities } from './callBacks';
import { createCampaignActivities } from './campaigns';
import { createVoiceCampaignActivities } from './voiceCampaigns';
import { createDuesActivities } from './dues';
import { createSystemActivities } from './system';
import { createWebhookActivities, type WebhookDeliverySettings } from './webhooks';
import { createWhatsAppActivities } from './whatsapp';

/**
 * What activities are built with; the worker process (and tests) assemble it once with
 * `buildActivityDeps` in src/worker/activityDeps.ts.
 */
export interface ActivityDeps {
  db: Db;
  /** For activities that start or signal other workflows. */
  temporal: Client;
  taskQueue: string;
  events: EventPublisher;
  voice: VoiceProvider;
  reader: CallReader;
  /** Campaign sends go through the same provider as POST /messages. */
  whatsapp: WhatsAppProvider;
  /** Channels this deployment offers (DEPLOYMENT_CHANNELS). */
  deploymentChannels: readonly string[];
  /** The dues app's payment links (PAYMENT_LINK_PROVIDER). */
  payments: PaymentLinkProvider;
  /** The chat agent's model (AGENT_MODEL_PROVIDER: the simulator or an OpenAI-compatible endpoint). */
  agentModel: AgentModel;
  /** Every tool an agent may call, from the sources the composition root lists (src/main/agentToolSources.ts). */
  toolbox: Toolbox;
  /** What other features do when a call ends or is read again: the composition root's set (src/main/featureHooks.ts). */
  callHooks: CallHooks;
  /** VOICE_ORIGINATE_ATTEMPTS (activities/calls.ts); absent, the setting's default. */
  originateAttempts?: number;
  /** Waits between a campaign batch's sends (activities/campaigns.ts); tests on the time-skipping server skip it. */
  pace?: (ms: number) => Promise<void>;
  /** Webhook delivery policy from the config; absent means public addresses only. */
  webhooks?: WebhookDeliverySettings;
  now?: () => Date;
}

/** Every activity the worker registers, wired to the process's dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
    ...createWebhookActivities(deps),
    ...createCallActivities(deps),
    ...createCallBackActivities(deps),
    ...createWhatsAppActivities(deps),
    ...createCampaignActivities(deps),
    ...createVoiceCampaignActivities(deps),
    ...createDuesActivities(deps),
    ...createAgentActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
