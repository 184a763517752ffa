import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import { useWorkspaceZone, wallTimeInZone, wallTimeText } from '../clock';
import { AudiencePicker, audienceRequest, listOf, type Audience } from '../components/AudiencePicker';
import { Options } from '../components/common';
import { described, Field, FormFoot, useFormSubmit } from '../components/forms';
import { errorsUnder } from '../formErrors';
import { usePoll } from '../hooks';
import type { Campaign, CampaignRequest } from '../api/types';
import { CHANNEL_CHOICES, CHANNEL_FACTS } from '../campaignChannels';
import { Link, navigate } from '../router';

/** The tokens a contact fills in a template variable (campaigns-tickets-dues §4). */
const TEMPLATE_TOKENS = ['{{contact.name}}', '{{contact.phone}}', '{{contact.email}}'];
const CAPTURE_TYPES = ['text', 'yes_no', 'choice', 'multi_choice', 'number', 'rating', 'date'] as const;
const CONSENT_BASES = ['existing_customer', 'explicit_opt_in', 'inbound_enquiry', 'service_message'] as const;

interface Question {
  label: string;
  type: (typeof CAPTURE_TYPES)[number];
  options: string;
  required: boolean;
}

/** How many `{{n}}` placeholders a template's body has: one variable each, in order. */
export function placeholderCount(body: string): number {
  let highest = 0;
  for (const m of body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) highest = Math.max(highest, Number(m[1]));
  return highest;
}

/** A stored audience as the picker edits it: ids and tags one a line, or the list. */
function audienceOf(a: CampaignRequest['request']['audience']): Audience {
  if (a.kind === 'contact_ids') return { kind: 'contact_ids', contact_ids: a.contact_ids.join('\n') };
  if (a.kind === 'segment') return { kind: 'segment', tags: a.tags.join(', ') };
  return { kind: 'uploaded_list', list_id: a.list_id };
}

const value = (e: Event) => (e.currentTarget as HTMLInputElement).value;
const blankToUndefined = (s: string) => (s.trim() === '' ? undefined : s.trim());
const wholeNumber = (s: string) => (s.trim() === '' ? undefined : Number(s));

/**
 * A new campaign: a WhatsApp broadcast (template and its variables) or a call campaign (agent,
 * purpose, script, questions), its audience, schedule and consent. The server checks it (the
 * public create's rules); a refusal shows beside its field, and a draft opens its own page.
 */
export function NewCampaignPage({ ws, draft }: { ws: string; draft?: CampaignRequest }) {
  const path = { workspace_id: ws };
  const zone = useWorkspaceZone();
  // Editing a draft: the form starts from its request (GET …/request) and saves with PUT at its version.
  const from = draft?.request;
  const initialTemplate = from?.template ? `${from.template.name}|${from.template.language ?? ''}` : '';
  const agents = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/agents', { params: { path } }))).items, 0, [ws]);
  const senders = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/senders', { params: { path } }))).items, 0, [ws]);
  const templates = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/templates', { params: { path } }))).items, 0, [ws]);

  const [name, setName] = useState(from?.name ?? '');
  const [channel, setChannel] = useState<Campaign['channel']>((from?.channel as Campaign['channel'] | undefined) ?? 'whatsapp');
  const facts = CHANNEL_FACTS[channel];
  const [audience, setAudience] = useState<Audience>(from ? audienceOf(from.audience) : { kind: 'segment', tags: '' });
  const [template, setTemplate] = useState(initialTemplate);
  const [variables, setVariables] = useState<string[]>(from?.template?.variables ?? []);
  const [senderId, setSenderId] = useState(from?.sender_id ?? '');
  const [agentId, setAgentId] = useState(from?.agent_id ?? '');
  const [purpose, setPurpose] = useState(from?.purpose ?? '');
  const [script, setScript] = useState(from?.script ?? '');
  const [goal, setGoal] = useState(from?.capture?.goal ?? '');
  const [questions, setQuestions] = useState<Question[]>(
    (from?.capture?.fields ?? []).map((f) => ({ label: f.label, type: f.type as Question['type'], options: f.options.join(', '), required: f.required })),
  );
  const [callBack, setCallBack] = useState(from?.call_back_incomplete ?? false);
  const [ownZone, setOwnZone] = useState(from?.schedule.recipient_time_zone ?? false);
  const [startAt, setStartAt] = useState(from?.schedule.start_at ? wallTimeText(from.schedule.start_at, zone) : '');
  const [timezone, setTimezone] = useState(from?.schedule.timezone ?? '');
  const [throttle, setThrottle] = useState(from?.schedule.throttle_per_minute == null ? '' : String(from.schedule.throttle_per_minute));
  const [windowStart, setWindowStart] = useState(from?.schedule.send_window_start_hour == null ? '' : String(from.schedule.send_window_start_hour));
  const [windowEnd, setWindowEnd] = useState(from?.schedule.send_window_end_hour == null ? '' : String(from.schedule.send_window_end_hour));
  const [consent, setConsent] = useState(from?.consent?.basis ?? '');
  const [consentNote, setConsentNote] = useState(from?.consent?.note ?? '');
  const { submit, onSubmit, errors, err } = useFormSubmit();

  const templateError = err('template') ?? err('template.name') ?? err('template.language');
  // A draft's template with no language asked (the workspace's variant) is shown as its first variant.
  const chosenTemplate = (templates.data ?? []).find((t) => `${t.name}|${t.language}` === template || (template.endsWith('|') && `${t.name}|` === template));
  const slots = chosenTemplate ? placeholderCount(chosenTemplate.body) : variables.length;
  const setQuestion = (i: number, change: Partial<Question>) => setQuestions(questions.map((q, j) => (j === i ? { ...q, ...change } : q)));

  function request(): Record<string, unknown> {
    const schedule = {
      // Read in the workspace's zone, the one clock every page shows (clock.ts).
      start_at: startAt ? (wallTimeInZone(startAt, zone)?.toISOString() ?? startAt) : undefined,
      timezone: blankToUndefined(timezone),
      throttle_per_minute: wholeNumber(throttle),
      send_window_start_hour: wholeNumber(windowStart),
      send_window_end_hour: wholeNumber(windowEnd),
      ...(facts.callsPeople && ownZone ? { recipient_time_zone: true } : {}),
    };
    const body: Record<string, unknown> = {
      name: name.trim(),
      channel,
      audience: audienceRequest(audience),
      schedule: Object.fromEntries(Object.entries(schedule).filter(([, v]) => v !== undefined)),
    };
    if (consent) body.consent = { basis: consent, note: blankToUndefined(consentNote) ?? null };
    if (!facts.callsPeople) {
      // No template chosen: sent without one, so the server's own refusal (template_not_found) says so.
      if (chosenTemplate) {
        // An unchanged draft template keeps the language it asked (null: the workspace's variant).
        const language = template === initialTemplate && from?.template ? from.template.language : chosenTemplate.language;
        body.template = { name: chosenTemplate.name, language, variables: variables.slice(0, slots).map((v) => v ?? '') };
      }
      if (senderId) body.sender_id = senderId;
    } else {
      if (agentId) body.agent_id = agentId;
      if (purpose.trim()) body.purpose = purpose.trim();
      if (script.trim()) body.script = script.trim();
      if (questions.length || goal.trim()) {
        body.capture = {
          goal: blankToUndefined(goal) ?? null,
          fields: questions.map((q) => ({ label: q.label, type: q.type, required: q.required, options: q.type === 'choice' || q.type === 'multi_choice' ? listOf(q.options) : [] })),
        };
      }
      if (callBack) body.call_back_incomplete = true;
    }
    return body;
  }

  return (
    <>
      <p>
        <Link to={`/w/${ws}/campaigns`}>All campaigns</Link>
      </p>
      <h1>{draft ? `Edit draft “${draft.request.name}”` : 'New campaign'}</h1>
      <p>
        {draft
          ? `Saving replaces the draft's settings (version ${draft.version}); if someone changed it meanwhile, nothing is saved and you are told.`
          : 'A draft messages nobody. Next you evaluate it (who would be reached, and anything that blocks a launch), then launch it.'}
      </p>
      <form
        class="create"
        noValidate
        onSubmit={onSubmit(async () => {
          if (draft) {
            const params = { path: { workspace_id: ws, campaign_id: draft.campaign_id } };
            await unwrap(api.PUT('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}', { params, body: { ...request(), expected_version: draft.version } as never }));
            navigate(`/w/${ws}/campaigns/${draft.campaign_id}`);
            return;
          }
          const created = await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/campaigns', { params: { path }, body: request() as never }));
          navigate(`/w/${ws}/campaigns/${created.campaign_id}`);
        })}
      >
        <fieldset>
          <legend>Campaign</legend>
          <Field id="campaign-name" label="Name" hint="For you and your team; people never see it." error={err('name')}>
            <input {...described('campaign-name', err('name'), 'hint')} value={name} maxLength={140} onInput={(e) => setName(value(e))} />
          </Field>
          <p class="group-label" id="channel-label">
            Reach them by
          </p>
          <div class="choices" role="group" aria-labelledby="channel-label">
            {CHANNEL_CHOICES.map(([name, choice]) => (
              <label key={name}>
                <input type="radio" name="channel" value={name} checked={channel === name} disabled={draft !== undefined && channel !== name} onChange={() => setChannel(name)} /> {choice.choice}
              </label>
            ))}
          </div>
          {err('channel') ? <p class="field-error">{err('channel')}</p> : null}
        </fieldset>

        <AudiencePicker ws={ws} value={audience} onChange={setAudience} errors={errors.fields} />

        {!facts.callsPeople ? (
          <fieldset>
            <legend>Message</legend>
            <Field id="campaign-template" label="Template" hint="An approved template of this workspace; it is checked again at launch." error={templateError}>
              <select
                {...described('campaign-template', templateError, 'hint')}
                value={chosenTemplate ? `${chosenTemplate.name}|${chosenTemplate.language}` : template}
                onChange={(e) => setTemplate(value(e))}
              >
                <option value="">Choose a template…</option>
                <Options of={(templates.data ?? []).map((t) => [`${t.name}|${t.language}`, `${t.name} (${t.language})${t.status === 'approved' ? '' : `: ${t.status}`}`])} />
              </select>
            </Field>
            {chosenTemplate ? <p class="hint">Text: {chosenTemplate.body}</p> : null}
            <datalist id="template-tokens">
              {TEMPLATE_TOKENS.map((t) => (
                <option key={t} value={t} />
              ))}
            </datalist>
            {Array.from({ length: slots }, (_, i) => (
              <Field key={i} id={`campaign-variable-${i}`} label={`Variable {{${i + 1}}}`} hint="Words as written, or a contact's {{contact.name}}, {{contact.phone}} or {{contact.email}}." error={err(`template.variables.${i}`)}>
                <input
                  {...described(`campaign-variable-${i}`, err(`template.variables.${i}`), 'hint')}
                  list="template-tokens"
                  value={variables[i] ?? ''}
                  onInput={(e) => {
                    const next = [...variables];
                    next[i] = value(e);
                    setVariables(next);
                  }}
                />
              </Field>
            ))}
            <Field id="campaign-sender" label="Sender" hint="Left as is: the workspace's default sender." error={err('sender_id')}>
              <select {...described('campaign-sender', err('sender_id'), 'hint')} value={senderId} onChange={(e) => setSenderId(value(e))}>
                <option value="">Default sender</option>
                <Options of={(senders.data ?? []).map((s) => [s.sender_id, `${s.display_name} (${s.phone})${s.connected ? '' : ', not connected'}`])} />
              </select>
            </Field>
          </fieldset>
        ) : (
          <fieldset>
            <legend>Call</legend>
            <Field id="campaign-agent" label="Agent" hint="The AI agent that speaks; calls go out from its number." error={err('agent_id')}>
              <select {...described('campaign-agent', err('agent_id'), 'hint')} value={agentId} onChange={(e) => setAgentId(value(e))}>
                <option value="">Choose an agent…</option>
                <Options of={(agents.data ?? []).map((a) => [a.agent_id, `${a.name} (${a.agent_id})`])} />
              </select>
            </Field>
            <Field id="campaign-purpose" label="Purpose" hint="Why you are calling, in a sentence (up to 500 characters). {{name}}, {{phone}}, {{email}} are filled per person." error={err('purpose')}>
              <textarea {...described('campaign-purpose', err('purpose'), 'hint')} value={purpose} maxLength={500} onInput={(e) => setPurpose(value(e))} />
            </Field>
            <Field id="campaign-script" label="Script" hint="What the agent should say and ask (up to 3,000 characters); the same {{…}} fill in." error={err('script')}>
              <textarea {...described('campaign-script', err('script'), 'hint')} value={script} maxLength={3000} onInput={(e) => setScript(value(e))} />
            </Field>
            <Field id="campaign-goal" label="Goal of the questions" hint="Optional, e.g. Confirm the delivery." error={err('capture.goal')}>
              <input {...described('campaign-goal', err('capture.goal'), 'hint')} value={goal} onInput={(e) => setGoal(value(e))} />
            </Field>
            <h3>Questions the call answers</h3>
            {questions.length === 0 ? <p class="hint">None yet: the call is read for its summary and outcome only.</p> : null}
            {questions.map((q, i) => (
              <div class="question" key={i} role="group" aria-label={`Question ${i + 1}`}>
                <Field id={`question-${i}-label`} label={`Question ${i + 1}`} error={err(`capture.fields.${i}.label`) ?? errorsUnder(errors.fields, `capture.fields.${i}`)}>
                  <input {...described(`question-${i}-label`, err(`capture.fields.${i}.label`))} value={q.label} onInput={(e) => setQuestion(i, { label: value(e) })} />
                </Field>
                <div class="row">
                  <Field id={`question-${i}-type`} label="Answer type">
                    <select id={`question-${i}-type`} value={q.type} onChange={(e) => setQuestion(i, { type: value(e) as Question['type'] })}>
                      <Options of={CAPTURE_TYPES.map((t) => [t, t.replace('_', ' ')])} />
                    </select>
                  </Field>
                  {q.type === 'choice' || q.type === 'multi_choice' ? (
                    <Field id={`question-${i}-options`} label="Options" hint="Separated by commas." error={err(`capture.fields.${i}.options`)}>
                      <input {...described(`question-${i}-options`, err(`capture.fields.${i}.options`), 'hint')} value={q.options} onInput={(e) => setQuestion(i, { options: value(e) })} />
                    </Field>
                  ) : null}
                </div>
                <label class="check">
                  <input type="checkbox" checked={q.required} onChange={(e) => setQuestion(i, { required: (e.currentTarget as HTMLInputElement).checked })} /> Required
                </label>
                <button type="button" onClick={() => setQuestions(questions.filter((_, j) => j !== i))}>
                  Remove question {i + 1}
                </button>
              </div>
            ))}
            {err('capture') ? <p class="field-error">{err('capture')}</p> : null}
            <button type="button" onClick={() => setQuestions([...questions, { label: '', type: 'text', options: '', required: false }])}>
              Add a question
            </button>
            <label class="check">
              <input type="checkbox" checked={callBack} onChange={(e) => setCallBack((e.currentTarget as HTMLInputElement).checked)} /> Call back once when a call ends partway with answers missing
            </label>
            <label class="check">
              <input type="checkbox" checked={ownZone} onChange={(e) => setOwnZone((e.currentTarget as HTMLInputElement).checked)} /> Hold each call to the calling window in the person's own time zone
            </label>
          </fieldset>
        )}

        <fieldset>
          <legend>Schedule</legend>
          <p class="hint">
            Left empty, each setting is the workspace's campaign default. {facts.windowHint}
          </p>
          <Field id="campaign-start" label="Start at" hint={`Empty: as soon as it is launched. In ${zone}, the workspace's time zone.`} error={err('schedule.start_at')}>
            <input {...described('campaign-start', err('schedule.start_at'), 'hint')} type="datetime-local" value={startAt} onInput={(e) => setStartAt(value(e))} />
          </Field>
          <Field id="campaign-timezone" label="Time zone of the window" hint="An IANA zone such as Asia/Kolkata." error={err('schedule.timezone')}>
            <input {...described('campaign-timezone', err('schedule.timezone'), 'hint')} value={timezone} placeholder="Workspace default" onInput={(e) => setTimezone(value(e))} />
          </Field>
          <div class="row">
            <Field id="campaign-throttle" label={facts.throttleLabel} hint="1 to 600." error={err('schedule.throttle_per_minute')}>
              <input {...described('campaign-throttle', err('schedule.throttle_per_minute'), 'hint')} type="number" inputMode="numeric" value={throttle} onInput={(e) => setThrottle(value(e))} />
            </Field>
            <Field id="campaign-window-start" label="Window opens (hour)" hint="0 to 23." error={err('schedule.send_window_start_hour')}>
              <input {...described('campaign-window-start', err('schedule.send_window_start_hour'), 'hint')} type="number" inputMode="numeric" value={windowStart} onInput={(e) => setWindowStart(value(e))} />
            </Field>
            <Field id="campaign-window-end" label="Window closes (hour)" hint="1 to 24." error={err('schedule.send_window_end_hour')}>
              <input {...described('campaign-window-end', err('schedule.send_window_end_hour'), 'hint')} type="number" inputMode="numeric" value={windowEnd} onInput={(e) => setWindowEnd(value(e))} />
            </Field>
          </div>
        </fieldset>

        <fieldset>
          <legend>Consent</legend>
          <Field id="campaign-consent" label="Why you may contact these people" hint="Optional; when given it is pinned at launch with the list's checksum." error={err('consent.basis') ?? err('consent')}>
            <select {...described('campaign-consent', err('consent.basis'), 'hint')} value={consent} onChange={(e) => setConsent(value(e))}>
              <option value="">Not stated</option>
              <Options of={CONSENT_BASES.map((b) => [b, b.replace(/_/g, ' ')])} />
            </select>
          </Field>
          {consent ? (
            <Field id="campaign-consent-note" label="Note" error={err('consent.note')}>
              <input {...described('campaign-consent-note', err('consent.note'))} value={consentNote} maxLength={400} onInput={(e) => setConsentNote(value(e))} />
            </Field>
          ) : null}
        </fieldset>

        <FormFoot
          problem={errors.general}
          busy={submit.busy}
          submit={draft ? 'Save draft' : 'Create draft'}
          cancelTo={draft ? `/w/${ws}/campaigns/${draft.campaign_id}` : `/w/${ws}/campaigns`}
        />
      </form>
    </>
  );
}
