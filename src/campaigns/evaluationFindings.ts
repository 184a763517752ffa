import type { CampaignAudience, ExclusionReason } from './campaign';

/**
 * Evaluate's findings (campaigns-tickets-dues §2 Evaluate result): each with a code, a
 * severity, what it means, how to fix it, where it is documented, and how many it touches.
 * A `block` finding stops a launch with 412 and that code.
 */

export type Severity = 'block' | 'warn' | 'info';

export type FindingCode =
  | 'audience_too_large'
  | 'plan_limit'
  | 'audience_empty'
  | 'template_not_approved'
  | 'template_variables'
  | 'template_media_missing'
  | 'channel_not_connected'
  | 'voice_not_configured'
  | 'no_phone_number'
  | 'no_agent_deployed'
  | ExclusionReason
  | 'quiet_hours'
  | 'contacts_not_found';

export interface Finding {
  code: FindingCode;
  severity: Severity;
  message: string;
  fix: string;
  docs: string;
  count: number;
}

/** Where each finding is explained; one place, so moving the docs changes one line. */
export const CAMPAIGN_DOCS_URL = 'https://docs.orchestrator.dev/campaigns';
export const docsFor = (code: string): string => `${CAMPAIGN_DOCS_URL}#${code.replace(/_/g, '-')}`;

export const finding = (code: FindingCode, severity: Severity, count: number, message: string, fix: string): Finding => ({
  code,
  severity,
  message,
  fix,
  docs: docsFor(code),
  count,
});

const people = (n: number) => `${n} ${n === 1 ? 'person' : 'people'}`;
const contacts = (n: number) => `${n} ${n === 1 ? 'contact' : 'contacts'}`;
/** The verb agreeing with a count: `verb(1, 'has', 'have')`. */
const verb = (n: number, one: string, many: string) => (n === 1 ? one : many);

const rows = (n: number) => `${n} ${n === 1 ? 'row' : 'rows'}`;

/** The same warnings for an uploaded list's rows, whose fix is in the file (console-only audience). */
function listExclusionFinding(reason: ExclusionReason, count: number): Finding | null {
  switch (reason) {
    case 'duplicate_recipient':
      return finding(reason, 'warn', count, `${rows(count)} ${verb(count, 'repeats', 'repeat')} a number already in the list and will be messaged once.`, 'Remove the repeated rows from the file, or leave them: each number is messaged once.');
    case 'invalid_destination':
      return finding(reason, 'warn', count, `${rows(count)} ${verb(count, 'has', 'have')} no usable phone number.`, "Correct the numbers in the file (with the country code, or local numbers of the workspace's country) and upload it again.");
    case 'missing_variable':
      return finding(reason, 'warn', count, `${rows(count)} ${verb(count, 'lacks', 'lack')} a value a variable needs and will be skipped.`, 'Fill in the empty cells in the file and upload it again, or use a literal value.');
    case 'country_not_allowed':
      return finding(reason, 'warn', count, `${rows(count)} ${verb(count, 'has a number', 'have numbers')} in a country not enabled for outbound calls and will not be called.`, 'Enable the country for outbound calls in the console, or leave these rows out.');
    default:
      return null;
  }
}

/** The warning for each kind of removed row; the removed rows are in `invalid_rows`. `list`: the audience is an uploaded list. */
export function exclusionFinding(reason: ExclusionReason, count: number, options: { list?: boolean } = {}): Finding {
  const fromList = options.list ? listExclusionFinding(reason, count) : null;
  if (fromList) return fromList;
  switch (reason) {
    case 'suppressed':
      return finding(reason, 'warn', count, `${people(count)} opted out by replying STOP and will not be messaged.`, 'Nothing to do: opt-outs are permanent.');
    case 'duplicate_recipient':
      return finding(reason, 'warn', count, `${contacts(count)} ${verb(count, 'repeats', 'repeat')} a contact or a number already in the audience and will be messaged once.`, 'Remove the repeated contacts, or leave them: each number is messaged once.');
    case 'invalid_destination':
      return finding(reason, 'warn', count, `${contacts(count)} ${verb(count, 'has', 'have')} no usable phone number.`, 'Add a valid phone number to these contacts.');
    case 'missing_variable':
      return finding(reason, 'warn', count, `${contacts(count)} ${verb(count, 'lacks', 'lack')} a value a template variable needs and will be skipped.`, 'Fill in the missing contact fields, or use a literal value in the template.');
    case 'country_not_allowed':
      return finding(reason, 'warn', count, `${contacts(count)} ${verb(count, 'has a number', 'have numbers')} in a country not enabled for outbound calls and will not be called.`, 'Enable the country for outbound calls in the console, or leave these contacts out.');
    case 'channel_consent_missing':
      return finding(reason, 'warn', count, `${contacts(count)} ${verb(count, 'has', 'have')} not agreed to be contacted on this channel.`, 'Record the consent on these contacts, or leave them out.');
  }
}

/** Why an exclusion removed people, in the words of "(no usable phone number: 12, opted out: 8)". */
const EXCLUDED_AS: Record<ExclusionReason, string> = {
  channel_consent_missing: 'no consent for this channel',
  suppressed: 'opted out',
  duplicate_recipient: 'repeated number',
  invalid_destination: 'no usable phone number',
  missing_variable: 'missing a template value',
  country_not_allowed: 'country not enabled for calls',
};
const EMPTY_FIX: Record<ExclusionReason, string> = {
  channel_consent_missing: 'record their consent for this channel',
  suppressed: 'choose people who have not opted out',
  duplicate_recipient: 'remove the repeated contacts',
  invalid_destination: 'add valid phone numbers to these contacts',
  missing_variable: 'fill in the contact fields the template needs',
  country_not_allowed: 'enable their country for outbound calls',
};

/**
 * `audience_empty` names the real cause: nobody matched (no contact has the tags, the list
 * has no rows, no id is a contact) is fixed in the audience; everybody matched but excluded
 * is fixed on the contacts, so the fix names the exclusions that removed them, largest first.
 */
export function emptyAudienceFinding(input: {
  audience: Pick<CampaignAudience, 'kind' | 'tags' | 'contact_id_count'>;
  matched: number;
  excluded: Partial<Record<ExclusionReason, number>>;
}): Finding {
  const { audience, matched } = input;
  if (matched === 0) {
    switch (audience.kind) {
      case 'segment': {
        const tags = audience.tags.map((t) => `"${t}"`).join(', ');
        const one = audience.tags.length === 1;
        return finding('audience_empty', 'block', 0, `No contact has ${one ? 'the tag' : 'every one of the tags'} ${tags}: nobody matched.`, `Tag the contacts to reach with ${tags}, or choose ${one ? 'a tag' : 'tags'} your contacts have.`);
      }
      case 'uploaded_list':
        return finding('audience_empty', 'block', 0, 'The uploaded list has no rows: nobody matched.', 'Upload a list with at least one row, or choose another list.');
      default:
        return audience.contact_id_count === 0
          ? finding('audience_empty', 'block', 0, 'The audience names no contacts: nobody matched.', 'Give the contact ids to reach, or choose contacts by tag.')
          : finding('audience_empty', 'block', 0, `None of the ${audience.contact_id_count} contact ids is a contact of this workspace: nobody matched.`, 'Give ids of contacts in this workspace.');
    }
  }
  const causes = (Object.entries(input.excluded) as [ExclusionReason, number][]).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  const said = causes.map(([reason, n]) => `${EXCLUDED_AS[reason]}: ${n}`).join(', ');
  const fix = causes.map(([reason]) => EMPTY_FIX[reason]).join(', or ');
  return finding('audience_empty', 'block', 0, `${matched === 1 ? 'The 1 person' : `All ${matched} people`} matched ${verb(matched, 'was', 'were')} excluded (${said}).`, `${fix.charAt(0).toUpperCase()}${fix.slice(1)}.`);
}
