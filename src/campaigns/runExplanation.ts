import type { CampaignDoc } from './campaign';
import type { CallProgress } from './voice/callProgress';
import type { ChannelRegistration } from './channelRegistration';
import { campaignChannel } from './channels';
import { campaignEta } from './estimate';
import { docsFor, type Finding } from './evaluationFindings';
import { isEmptyWindow, isWindowOpen, nextOpenTime } from '../domain/sendWindow';
import type { RecipientState } from './staging';
import { formatHours, formatZonedTime, plural } from './zonedText';

/**
 * What a campaign's run is doing and why, in words (the console's campaign page and
 * `campaigns show`/`watch`; docs/console.md "The campaign page"): sending (throttle, window,
 * finish estimate), waiting for the send or calling window, held (the reason and its fix),
 * paused, settling, or finished. Pure: the route gathers the record, the counts and what the
 * run's query says, and this decides; times are written in the workspace's zone.
 */

/** Statuses whose run places no more calls. */
const RUN_ENDED: ReadonlySet<CampaignDoc['status']> = new Set(['draft', 'completed', 'failed', 'cancelled', 'archived']);

export const RUN_STATES = ['draft', 'scheduled', 'sending', 'waiting_for_window', 'held', 'paused', 'settling', 'completed', 'failed', 'cancelled', 'archived'] as const;
export type RunState = (typeof RUN_STATES)[number];

/** What the run's query answers (`CampaignRunState`, and a call campaign's `VoiceCampaignRunState`). */
export interface RunSnapshot {
  held: string | null;
  phase: 'waiting' | 'sending' | 'settling';
  /** Call campaigns: calls placed and awaited. */
  active?: number;
  callBacksOwed?: number;
  waitingForPlace?: boolean;
  waitingForOwnWindow?: number;
}

export interface RunExplanation {
  state: RunState;
  /** One sentence: the state and its reason. */
  headline: string;
  /** Further sentences, each standing alone (the window, the estimate, what the run waits on). */
  details: string[];
  /** Held only: the run's reason (`workspace_suspended`, `wallet_empty`, …). */
  held_reason: string | null;
  /** What the operator can do, when something is theirs to do. */
  fix: string | null;
  /** Where the held reason is documented. */
  docs: string | null;
  /** The zone the sentences' times are written in: the workspace's. */
  time_zone: string;
  window: {
    start_hour: number;
    end_hour: number;
    /** The campaign's zone, which the hours are in. */
    time_zone: string;
    /** Call campaigns with `recipient_time_zone`: the hours hold in each person's own zone instead. */
    per_recipient_zone: boolean;
    /** Open now (or at a start still ahead); null when held per person. */
    open: boolean | null;
    /** When it next opens, if shut (ISO). */
    opens_at: string | null;
  };
  throttle_per_minute: number;
  /** People not yet sent to (WhatsApp) or never dialled (voice). */
  remaining: number;
  /** When the last send should go at the throttle (ISO), while there is one to estimate. */
  eta: string | null;
  /** Call campaigns: call-backs owed and not yet placed, as the run says (0 once finished); null when not known. */
  call_backs_owed: number | null;
}

export interface ExplainInput {
  campaign: Pick<CampaignDoc, 'status' | 'channel' | 'recipients' | 'schedule' | 'completed_at'>;
  /** Recipients by state, as the routes answer them (`countsView`). */
  states: Partial<Record<RecipientState, number>>;
  counters: CampaignDoc['counters'];
  calls?: CallProgress | undefined;
  /** What the run's query said, or null (not asked, not answering). */
  run: RunSnapshot | null;
  workspaceZone: string;
  now: Date;
}

interface HeldText {
  /** Completes "Held: …". */
  what: string;
  fix: string;
}

const MINUTES = (ms: number) => `${Math.round(ms / 60_000)} minutes`;

/** Each reason the runs hold for (src/campaigns/whatsapp/sendBatch.ts HOLDING, a call's refusals that concern everyone), with its fix. */
function heldText(reason: string, channel: ChannelRegistration): HeldText {
  const poll = MINUTES(channel.holdPollMs);
  const again = `the run looks again every ${poll}`;
  switch (reason) {
    case 'workspace_suspended':
      return { what: 'the workspace is suspended for billing.', fix: `Pay the open invoice; ${again}.` };
    case 'allowance_exhausted':
      return { what: "the plan's conversations for this month are used up and there are no prepaid credits.", fix: `Buy prepaid credits or wait for the monthly allowance; ${again}.` };
    case 'wallet_empty':
      return { what: "the plan's voice minutes are used up and there are no prepaid minutes.", fix: `Buy prepaid minutes or wait for the monthly allowance; ${again}.` };
    case 'daily_call_budget':
      return { what: "today's call budget is spent.", fix: 'Calls resume after midnight UTC; raise the daily call budget to go on sooner.' };
    case 'channel_dormant':
      return { what: `the plan no longer includes ${channel.planFeature}.`, fix: `Add ${channel.planFeature} to the plan; ${again}.` };
    case 'channel_not_connected':
    case 'unsupported_channel':
      return { what: 'no WhatsApp number is connected to send from.', fix: `Connect a WhatsApp number in the console; ${again}.` };
    case 'template_not_found':
      return { what: "the campaign's template is no longer approved.", fix: 'Get the template approved again, or cancel and create the campaign with another template.' };
    case 'template_media_missing':
      return { what: "the campaign's template needs a header image or document that is not set.", fix: 'Set the media on the template, or cancel and create the campaign with another template.' };
    case 'template_variables':
      return { what: "the campaign's variables no longer fit its template.", fix: 'Cancel and create the campaign with variables that fit the template.' };
    case 'no_agent_deployed':
    case 'agent_number_mismatch':
      return { what: "no phone number has the campaign's agent deployed on it.", fix: `Deploy the agent on a phone number; ${again}.` };
    case 'no_phone_number':
    case 'unknown_from_number':
      return { what: 'the workspace has no phone number to call from.', fix: `Add a phone number; ${again}.` };
    case 'voice_not_configured':
      return { what: 'calling is not set up for this workspace.', fix: `Set up voice for the workspace; ${again}.` };
    default:
      return { what: `the provider refused to go on (${reason}).`, fix: `See ${docsFor(reason)}; ${again}.` };
  }
}

/**
 * The launch notice `window_closed` (console and public launch): the send or calling window is
 * shut when the campaign would start (now, or its scheduled start), so nothing goes out until
 * it opens. None for a call campaign held to each person's own zone (people whose window is
 * open are called at once).
 */
export function windowClosedNotice(
  campaign: Pick<CampaignDoc, 'channel' | 'recipients' | 'schedule'>,
  workspaceZone: string,
  now: Date,
): (Omit<Finding, 'code'> & { code: 'window_closed' }) | null {
  const s = campaign.schedule;
  // Held to each person's own zone (only call campaigns store it): people whose window is open go at once.
  if (s.recipient_time_zone === true) return null;
  const window = { startHour: s.send_window_start_hour, endHour: s.send_window_end_hour };
  if (isEmptyWindow(window)) return null;
  const later = s.start_at !== null && s.start_at > now;
  const from = later ? s.start_at! : now;
  if (isWindowOpen(from, window, s.timezone)) return null;
  const opensAt = nextOpenTime(from, window, s.timezone);
  const { words } = campaignChannel(campaign.channel);
  const what = `The ${words.window} window (${formatHours(window.startHour, window.endHour)} in ${s.timezone})`;
  const shut = later ? `is shut at the scheduled start, ${formatZonedTime(from, workspaceZone, now)}` : 'is shut now';
  return {
    code: 'window_closed',
    severity: 'info',
    message: `${what} ${shut}; the first ${words.unit[0]} goes at ${formatZonedTime(opensAt, workspaceZone, now)}.`,
    fix: 'Nothing to do: the campaign waits for the window. Pause or cancel it if it should not go then.',
    docs: docsFor('window_closed'),
    count: campaign.recipients,
  };
}

/**
 * When a launched campaign's next send waits for: its scheduled start, or its window opening
 * (whichever is later). Null when it is not waiting: not launched, finished, sending now, or
 * held to each person's own zone (someone's window may be open). The console shows such a
 * run as waiting until then, not as running (issue 35 §6).
 */
export function runWaitsUntil(campaign: Pick<CampaignDoc, 'status' | 'schedule'>, now: Date): Date | null {
  if (campaign.status !== 'scheduled' && campaign.status !== 'running') return null;
  const s = campaign.schedule;
  if (s.recipient_time_zone === true) return null;
  const window = { startHour: s.send_window_start_hour, endHour: s.send_window_end_hour };
  if (isEmptyWindow(window)) return null;
  const from = s.start_at !== null && s.start_at > now ? s.start_at : now;
  const at = nextOpenTime(from, window, s.timezone);
  return at > now ? at : null;
}

export function explainCampaignRun(input: ExplainInput): RunExplanation {
  const { campaign, now, run } = input;
  const zone = input.workspaceZone;
  const s = campaign.schedule;
  const channel = campaignChannel(campaign.channel);
  const { words } = channel;
  // Places held by live calls and call-backs owed: only a channel whose run holds them tells of them.
  const livePlaces = channel.holdsLivePlaces;
  const perRecipientZone = s.recipient_time_zone === true;
  const windowWord = `${words.window} window`;
  const unit = words.unit;
  const people = (n: number) => plural(n, 'person', 'people');
  const when = (at: Date) => formatZonedTime(at, zone, now);
  const hours = `${formatHours(s.send_window_start_hour, s.send_window_end_hour)} ${perRecipientZone ? "in each person's own zone" : `in ${s.timezone}`}`;

  const startsLater = s.start_at !== null && s.start_at > now;
  const from = startsLater ? s.start_at! : now;
  const window = { startHour: s.send_window_start_hour, endHour: s.send_window_end_hour };
  const empty = isEmptyWindow(window);
  const open = perRecipientZone ? null : !empty && isWindowOpen(from, window, s.timezone);
  const opensAt = open === false && !empty ? nextOpenTime(from, window, s.timezone) : null;
  const remaining = Math.max(0, input.states.queued ?? 0);
  const live = input.states.calling ?? 0;

  const etaOf = () => (remaining > 0 ? campaignEta({ remaining, throttlePerMinute: s.throttle_per_minute, observedPerMinute: null, schedule: s, now }).at : null);
  const base = (state: RunState, headline: string, details: string[] = [], extra: Partial<RunExplanation> = {}): RunExplanation => ({
    state,
    headline,
    details,
    held_reason: null,
    fix: null,
    docs: null,
    time_zone: zone,
    window: {
      start_hour: s.send_window_start_hour,
      end_hour: s.send_window_end_hour,
      time_zone: s.timezone,
      per_recipient_zone: perRecipientZone,
      open,
      opens_at: opensAt?.toISOString() ?? null,
    },
    throttle_per_minute: s.throttle_per_minute,
    remaining,
    eta: null,
    call_backs_owed: !livePlaces ? null : RUN_ENDED.has(campaign.status) ? 0 : (run?.callBacksOwed ?? null),
    ...extra,
  });
  const rate = `up to ${plural(s.throttle_per_minute, unit[0], unit[1])} a minute, ${hours}`;
  const etaSentence = (at: Date | null) =>
    at ? `At the throttle the last ${unit[0]} goes about ${when(at)}${words.etaCaveat}.` : null;
  const finished = (what: string) => (campaign.completed_at ? `${what} ${when(campaign.completed_at)}` : what);
  const tally = words.tally(input.counters, input.calls ?? null);

  switch (campaign.status) {
    case 'draft':
      return base('draft', 'Draft: nothing goes out until it is launched.', [`Once launched it sends ${rate}.`], {
        fix: 'Evaluate to see who it would reach, then launch.',
      });
    case 'paused':
      return base('paused', `Paused: nothing more goes out; ${people(remaining)} still to ${words.toDo}.`, live > 0 ? [`${plural(live, 'call is', 'calls are')} still in progress or owed a call-back.`] : [], {
        fix: 'Resume to carry on from where it stopped; nobody is sent to twice.',
      });
    case 'completed':
      return base('completed', `${finished('Completed')}: ${tally}.`, [...words.afterCompletion]);
    case 'failed':
      return base('failed', `${finished('Failed')}: the run stopped on an error it could not recover from; ${people(remaining)} never ${words.done}.`, [`${tally}.`], {
        fix: 'Create a new campaign for the people not reached (the recipients list shows who they are).',
      });
    case 'cancelled':
      return base('cancelled', `${finished('Cancelled')}: everyone not yet ${words.done} was skipped.`, [`${tally}.`]);
    case 'archived':
      return base('archived', `Archived: finished and hidden from the campaign list (${tally}).`);
    case 'scheduled':
    case 'running':
      break;
  }

  if (run?.held) {
    const held = heldText(run.held, channel);
    return base('held', `Held: ${held.what}`, [`${people(remaining)} still to ${words.toDo}; nothing goes out until this is fixed.`], {
      held_reason: run.held,
      fix: held.fix,
      docs: docsFor(run.held),
    });
  }
  if (empty) return base('held', `Held: the ${windowWord} ${formatHours(window.startHour, window.endHour)} has no open hour.`, [], { fix: 'Cancel and create the campaign with a wider window.' });

  if (campaign.status === 'scheduled' && startsLater) {
    const eta = etaOf();
    const details = [
      opensAt ? `The ${windowWord} (${hours}) is shut then, so the first ${unit[0]} goes at ${when(opensAt)}.` : `It sends ${rate}.`,
      etaSentence(eta),
    ].filter((d): d is string => d !== null);
    return base('scheduled', `Scheduled: starts ${when(s.start_at!)}.`, details, { eta: eta?.toISOString() ?? null });
  }

  if (remaining === 0 || run?.phase === 'settling') {
    if (livePlaces && live > 0) {
      const owed = run?.callBacksOwed ?? 0;
      const detail = owed > 0 ? [`${plural(owed, 'call-back is', 'call-backs are')} owed; they go inside the ${windowWord}.`] : [];
      return base('settling', `Settling: everyone has been dialled; waiting for ${plural(live, 'call', 'calls')} to finish or be called back.`, detail);
    }
    return base('settling', words.settled);
  }

  const eta = etaOf();
  const estimate = etaSentence(eta);
  if (open === false && opensAt) {
    return base(
      'waiting_for_window',
      `Waiting for the ${windowWord}: ${unit[1]} go ${hours}; it opens ${when(opensAt)}.`,
      [`${people(remaining)} still to ${words.toDo}, ${rate}.`, ...(estimate ? [estimate] : [])],
      { eta: eta?.toISOString() ?? null },
    );
  }
  const details = [estimate];
  if (livePlaces && run?.waitingForPlace) details.push("Every live-call place of the workspace is taken; the next call goes as soon as one is free.");
  if (livePlaces && (run?.waitingForOwnWindow ?? 0) > 0) details.push(`${people(run!.waitingForOwnWindow!)} wait for the window to open in their own zone.`);
  if (livePlaces && live > 0) details.push(`${plural(live, 'call is', 'calls are')} in progress or owed a call-back.`);
  return base(
    'sending',
    `${words.doing}: ${rate}; ${remaining.toLocaleString('en-US')} of ${people(campaign.recipients)} still to ${words.toDo}.`,
    details.filter((d): d is string => d !== null),
    { eta: eta?.toISOString() ?? null },
  );
}
