import { walletEmpty } from '../../calls';
import { CALL_BOUNDS } from '../../domain/sendWindow';
import { startWorkflow } from '../../temporal/startWorkflow';
import type { ChannelRegistration } from '../channelRegistration';
import { CALL_HOLD_POLL_MS, voiceCampaignRunDefinition } from '../contracts';
import { plural } from '../zonedText';
import { readVoiceReadiness } from './readiness';

/** Call campaigns (`voice_batch`): the call run places each person's call through the calls slice. */
export const voiceChannel: ChannelRegistration = {
  type: 'voice_batch',
  label: 'voice',
  required: { field: 'agent_id', reason: 'invalid_argument', message: 'A voice campaign needs an agent_id.' },
  ownFields: ['agent_id', 'purpose', 'script', 'capture', 'call_back_incomplete', 'schedule.recipient_time_zone'],
  // Calls are held to 10:00 to 19:00 whatever the schedule or the workspace's settings say.
  windowBounds: CALL_BOUNDS,
  ownSchedule: (asked) => ({ recipient_time_zone: asked.recipient_time_zone === true }),

  classifyOptions: (campaign, workspace) => ({ callTexts: { purpose: campaign.purpose, script: campaign.script }, callingCodes: workspace.calling_country_codes }),
  readReadiness: async (db, campaign, workspace) => ({ senderProblem: null, voice: await readVoiceReadiness(db, campaign, workspace) }),

  planFeature: 'phone numbers',
  planIncludes: (plan) => plan.phone_numbers,
  // Call campaigns spend voice minutes: the contract's step 3 reason, for the calls' wallet.
  allowanceRefusal: (workspace) =>
    walletEmpty(workspace) ? { message: "The plan's voice minutes are used up and there are no prepaid minutes.", fix: 'Buy prepaid minutes or wait for the monthly allowance.' } : null,

  startRun: (temporal, options, input) => startWorkflow(temporal, voiceCampaignRunDefinition, { ...options, args: [{ ...input, active: [], callBacks: [], nextPlaceAtMs: null }] }),
  // The run counts only after its live calls end, so a cancel does not wait for it.
  cancelWaitsForFinalCount: false,

  holdsLivePlaces: true,
  holdPollMs: CALL_HOLD_POLL_MS,
  words: {
    unit: ['call', 'calls'],
    window: 'calling',
    toDo: 'call',
    done: 'called',
    doing: 'Calling',
    etaCaveat: '; calls that run long or a full set of live calls make it later',
    settled: 'Settling: every call has ended; the last outcomes are being counted before it completes.',
    afterCompletion: [],
    tally: (_counters, calls) => `${plural(calls?.dialled ?? 0, 'person', 'people')} dialled, ${calls?.answered ?? 0} answered, ${calls?.completed ?? 0} completed`,
  },
  countsCalls: true,
};
