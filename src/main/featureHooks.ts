import { tellCampaignCallEnded } from '../campaigns/voice/callEndNotice';
import { recipientsFollowMessages } from '../campaigns/recipients';
import { refoldCampaignCall } from '../campaigns/voice/rereadRefold';
import { callHooksInstalled, installCallHooks, type CallEndedHook, type CallHooks, type CallRereadHook } from '../calls/callHooks';
import { FeatureHooksMissing } from '../domain/featureHooksMissing';
import { installMessageStatusHooks, messageStatusHooksInstalled, type MessageStatusHook } from '../messaging/deliveryStatus';

/**
 * How features reach each other without naming each other: the generic call and messaging
 * code runs the hooks installed here, and each feature hooks in its reaction. The set is one
 * typed object, so a reaction left out is a type error; every process installs it before it
 * serves (the API and the worker, and the test run's setup), and `createApp`/`createWorker`
 * refuse to start without it (`requireFeatureHooks`). Installing twice changes nothing.
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

export function registerFeatureHooks(hooks: FeatureHooks = FEATURE_HOOKS): void {
  installCallHooks(hooks.calls);
  installMessageStatusHooks(hooks.messageStatuses);
}

/** Refuses to start a process whose composition root forgot `registerFeatureHooks()`. */
export function requireFeatureHooks(): void {
  if (!callHooksInstalled()) throw new FeatureHooksMissing('call');
  if (!messageStatusHooksInstalled()) throw new FeatureHooksMissing('message status');
}
