import type { Client, WorkflowStartOptions } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { WorkspaceDoc } from '../db/collections';
import type { WindowBounds } from '../domain/sendWindow';
import type { CampaignCounters, CampaignDoc, CampaignSchedule, CampaignType } from './campaign';
import type { RunInputBase } from './contracts';
import type { ClassifyOptions } from './audience';
import type { CallProgress } from './voice/callCounts';
import type { VoiceReadiness } from './voice/readiness';

/**
 * What a campaign channel is to the generic campaign code: each channel's folder
 * (src/campaigns/whatsapp/, src/campaigns/voice/) exports one of these and src/campaigns/channels.ts
 * lists it, so create, evaluate, launch, control, the run explanation and the API views look
 * the channel up instead of switching on its name. A new channel is a folder plus one line there.
 *
 * Apart from src/campaigns/channels.ts so a channel's folder can import the type without a cycle.
 */

/** A create field that belongs to one channel (`schedule.recipient_time_zone` counts only when true). */
export type ChannelField = 'template' | 'sender_id' | 'agent_id' | 'purpose' | 'script' | 'capture' | 'call_back_incomplete' | 'schedule.recipient_time_zone';

/** What the launch of a campaign of this channel must find ready, read once per evaluate. */
export interface ChannelReadiness {
  /** Why the sender cannot send (`channel_not_connected`), or null. */
  senderProblem: string | null;
  /** Call campaigns: what placing their calls needs; null for a channel that places none. */
  voice: VoiceReadiness | null;
}

/** The words a channel's run is explained in (src/campaigns/runExplanation.ts). */
export interface ChannelWords {
  /** One unit and many: `call`/`calls`, `message`/`messages`. */
  unit: readonly [string, string];
  /** `calling` or `send` (… window). */
  window: string;
  /** Completes "still to …": `call`, `send to`. */
  toDo: string;
  /** Completes "never …" / "not yet …": `called`, `sent to`. */
  done: string;
  /** The running headline's verb: `Calling`, `Sending`. */
  doing: string;
  /** Appended to the finish estimate (empty for none). */
  etaCaveat: string;
  /** The settling headline once nothing is left under way. */
  settled: string;
  /** The details of a completed run. */
  afterCompletion: readonly string[];
  /** The finished run's tally from its counters and (call campaigns) call progress. */
  tally(counters: CampaignCounters, calls: CallProgress | null): string;
}

export interface ChannelRegistration {
  /** The stored `type` (`whatsapp_broadcast`, `voice_batch`). */
  type: CampaignType;
  /** How the channel is named in a refusal: "… applies to {label} campaigns only." */
  label: string;

  /** Create: the field a campaign of this channel cannot go without, and its refusal. */
  required: { field: ChannelField; reason: 'template_not_found' | 'invalid_argument'; message: string };
  /** Create: the fields only this channel takes; any other channel refuses them when sent. */
  ownFields: readonly ChannelField[];
  /** The hours the send window is clamped to whatever is asked (calls 10:00 to 19:00). */
  windowBounds: WindowBounds;
  /** The schedule fields this channel stores of its own (a call campaign's `recipient_time_zone`). */
  ownSchedule(asked: { recipient_time_zone?: boolean | null | undefined }): Partial<CampaignSchedule>;

  /** Evaluate: what the audience's classification adds for this channel (a call's texts, the callable countries). */
  classifyOptions(campaign: CampaignDoc, workspace: WorkspaceDoc): Partial<ClassifyOptions>;
  /** Evaluate: reads what a launch needs ready (the WhatsApp sender, the voice numbers). */
  readReadiness(db: Db, campaign: CampaignDoc, workspace: WorkspaceDoc): Promise<ChannelReadiness>;

  /** Launch check 2 (`channel_dormant`): what the plan must include, in words, and whether it does. */
  planFeature: string;
  planIncludes(plan: WorkspaceDoc['plan']): boolean;
  /** Launch check 3 (`allowance_exhausted`): the allowance this channel spends, when used up. */
  allowanceRefusal(workspace: WorkspaceDoc): { message: string; fix: string } | null;

  /** Starts the channel's run workflow from the generic run input. */
  startRun(temporal: Client, options: Omit<WorkflowStartOptions, 'args'>, input: RunInputBase): Promise<unknown>;
  /** A cancel waits (a bounded while) for the run to count everyone skipped before answering. */
  cancelWaitsForFinalCount: boolean;

  /** A run that holds live places (calls in progress, call-backs owed) the explanation tells of. */
  holdsLivePlaces: boolean;
  /** How often a held run looks again (the explanation's fix). */
  holdPollMs: number;
  words: ChannelWords;
  /** The campaign's people are called: its views carry the call progress beside the counters. */
  countsCalls: boolean;
}
