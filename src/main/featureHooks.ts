import { tellCampaignCallEnded } from '../campaigns/voice/callEndNotice';
import { recipientsFollowMessages } from '../campaigns/recipients';
import { refoldCampaignCall } from '../campaigns/voice/rereadRefold';
import { agentAnswersInbound, conversationAgentSettings } from '../agents';
import type { CallEndedHook, CallHooks, CallRereadHook } from '../calls/callHooks';
import type { Config } from '../config';
import type { InboundHooks } from '../messaging';
import { FeatureHooksMissing } from '../domain/featureHooksMissing';
import { installMessageStatusHooks, messageStatusHooksInstalled, type MessageStatusHook } from '../messaging/deliveryStatus';

/**
 * How features reach each other without naming each other: the generic call and messaging
 * code runs the hooks built here, and each feature hooks in its reaction. The set is one typed
 * object, so a reaction left out is a type error. The call hooks are a dependency of the code
 * that ends and reads calls (the worker's activities get them from src/worker/activityDeps.ts,
 * the live-place sweep from the worker's deps). The message status hooks are installed per
 * process by `registerFeatureHooks()` (the API, the worker and the test setup), because the
 * status webhook and the simulated provider build messaging's deps themselves; `createApp`
 * and `createWorker` refuse to start without them (`requireFeatureHooks`), and applying
 * statuses refuses too. Installing twice changes nothing.
 */
export interface FeatureHooks {
  calls: CallHooks;
  messageStatuses: readonly MessageStatusHook[];
}

const campaignRunToldOfCallEnd: CallEndedHook = async ({ db, temporal }, call) => (temporal ? tellCampaignCallEnded({ db, temporal }, call) : false);

const campaignCallRefolded: CallRereadHook = ({ db }, callId, at) => refoldCampaignCall(db, callId, at);

export const FEATURE_HOOKS: FeatureHooks = {
  calls: {
    // A call campaign's run waiting for a live place looks now instead of at its next poll.
    ended: [campaignRunToldOfCallEnd],
    // A console re-read of a campaign call refolds its person's merged outcome.
    reread: [campaignCallRefolded],
  },
  // A campaign recipient follows its message's status.
  messageStatuses: [recipientsFollowMessages],
};

/**
 * The reactions to a recorded customer message, a dependency of messaging's inbound path (the
 * Cloud API webhook and the console's injection; `InboundDeps.inboundHooks`): the sender's chat
 * agent answers (its pacing read from the deployment's settings, hence a function of them).
 */
export function inboundHooksFor(config: Pick<Config, 'AGENT_BURST_QUIET_MS' | 'AGENT_HOLD_TIMEOUT_MINUTES'>): InboundHooks {
  return { received: [agentAnswersInbound(conversationAgentSettings(config))] };
}

export function registerFeatureHooks(hooks: FeatureHooks = FEATURE_HOOKS): void {
  installMessageStatusHooks(hooks.messageStatuses);
}

/** Refuses to start a process whose composition root forgot `registerFeatureHooks()`. */
export function requireFeatureHooks(): void {
  if (!messageStatusHooksInstalled()) throw new FeatureHooksMissing('message status');
}
