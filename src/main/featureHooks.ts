import { tellCampaignCallEnded } from '../campaigns/voice/callEndNotice';
import { recipientsFollowMessages } from '../campaigns/recipients';
import { refoldCampaignCall } from '../campaigns/voice/rereadRefold';
import { onCallEnded, onCallReread } from '../calls/callHooks';
import { onMessageStatuses } from '../messaging/deliveryStatus';

/**
 * How features reach each other without naming each other: the generic call and messaging
 * code runs the hooks registered here, and each feature hooks in its reaction. Every process
 * registers them before it serves (the API and the worker, and the test run's setup);
 * registering twice changes nothing.
 */
export function registerFeatureHooks(): void {
  // A campaign recipient follows its message's status.
  onMessageStatuses(recipientsFollowMessages);
  // A call campaign's run waiting for a live place looks now instead of at its next poll.
  onCallEnded(campaignRunToldOfCallEnd);
  // A console re-read of a campaign call refolds its person's merged outcome.
  onCallReread(campaignCallRefolded);
}

const campaignRunToldOfCallEnd: Parameters<typeof onCallEnded>[0] = async ({ db, temporal }, call) => (temporal ? tellCampaignCallEnded({ db, temporal }, call) : false);

const campaignCallRefolded: Parameters<typeof onCallReread>[0] = ({ db }, callId, at) => refoldCampaignCall(db, callId, at);
