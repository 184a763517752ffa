/**
 * How the console words values for people: no JSX, no DOM, so the unit tests
 * (test/unit/console/webFormat.test.ts) import it directly.
 */

/** What a missing value shows as, everywhere on the console. */
export const MISSING = '—';

/**
 * A captured field's value as text: a yes/no answer (the `yes_no` type's true/false) as
 * "Yes"/"No", lists and objects as JSON, absent as a dash.
 */
export function fieldValue(value: unknown): string {
  if (value === null || value === undefined) return MISSING;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** What the console knows of a transcript turn when labelling who said it. */
export interface LabelledTurn {
  role: string;
  kind?: string;
  /** Set when the turn is a message the business sent from a campaign. */
  campaign_id?: string | null;
  /** Set when the turn is a template message the business sent. */
  template?: string | null;
  /** The team member's name on a reply sent from the inbox. */
  author_name?: string | null;
}

/**
 * Who said a turn. `human` covers both the business's own sends (a campaign's or an API
 * template message) and a team member's reply; the former read as the business's.
 */
export function turnLabel(turn: LabelledTurn): string {
  if (turn.kind === 'trail') return 'Trail';
  switch (turn.role) {
    case 'user':
      return 'Customer';
    case 'model':
      return 'AI agent';
    case 'human':
      return turn.campaign_id || turn.template ? 'Business' : turn.author_name ? `Team member (${turn.author_name})` : 'Team member';
    default:
      return turn.role;
  }
}
