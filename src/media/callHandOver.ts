import type { TrailEntry } from '../agents';
import type { HandOverAnswer } from './callTools';

/**
 * A hand-over asked by one of the agent's tools on a live call (the built-in `hand_over`, or a
 * business tool answering `hand_over`): with a team line on the number the caller hears a hold
 * line and is moved to it, as `transfer_to_human` moves them; without one the agent says it
 * cannot transfer and the call goes on. Either way the call's trail says what happened.
 */

/** What the model is asked to say, as a response of its own, before the caller is moved. */
export const HAND_OVER_LINE_INSTRUCTIONS =
  'You are handing this call to a colleague on the team. Tell the caller in one short sentence that you are connecting them to a colleague now and ask them to hold. Say nothing else and do not call any tool.';

/** What the model is given back when the caller is being moved (it answers nothing: the bridge has the hold line said). */
const TRANSFERRING_NOTE = 'The caller is being connected to a colleague on the team now; the hold line is being said.';

/** What the model is given back when nobody can take the call: it answers the caller from it. */
const NO_TEAM_LINE_ERROR = 'Nobody from the team can take this call: this line has no transfer number. Tell the caller you cannot transfer them now, and keep helping them yourself.';

export interface HandOverRequest {
  tool: string;
  reason: string;
}

export interface HandOverDecision {
  answer: HandOverAnswer;
  /** The call's trail row; null for a repeated request while the caller is already being moved. */
  trail: TrailEntry | null;
  /** True for the request that starts the transfer (exactly one per call). */
  starts: boolean;
}

/**
 * What a tool's hand-over does on this call: `teamLine` is the number's (null: none set), and
 * `underWay` whether the caller is already being moved or the call is ending.
 */
export function decideHandOver(request: HandOverRequest, teamLine: string | null, underWay: boolean): HandOverDecision {
  // The tool's own trail row gives the reason in words; the detail keeps it with the row.
  const detail = { tool: request.tool, reason: request.reason };
  if (!teamLine) {
    return {
      answer: { transferring: false, output: { handed_over: false, error: NO_TEAM_LINE_ERROR } },
      trail: { kind: 'hold', text: `Not handed over: ${request.tool} asked for a person, but this number has no team line; the call goes on with the agent`, detail },
      starts: false,
    };
  }
  const answer: HandOverAnswer = { transferring: true, output: { handed_over: true, note: TRANSFERRING_NOTE } };
  if (underWay) return { answer, trail: null, starts: false };
  return {
    answer,
    trail: { kind: 'hold', text: `Handing the call to the team line ${teamLine} (asked by ${request.tool}); the caller hears a hold line`, detail: { ...detail, team_line: teamLine } },
    starts: true,
  };
}
