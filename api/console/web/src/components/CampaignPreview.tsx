import type { CampaignPreview } from '../api/types';

/**
 * What a campaign sends and to whom (GET …/preview): the message with the variables filled for a
 * sample person, the template, the sender and the audience. Shown on the campaign page and in
 * the launch dialog, so nobody launches a message they have not read.
 */
export function PreviewView({ preview: p, testId }: { preview: CampaignPreview; testId: string }) {
  const who = p.sample ? `${p.sample.name ?? 'No name'} (${p.sample.to})` : null;
  return (
    <div data-testid={testId}>
      <dl class="facts">
        <dt>Audience</dt>
        <dd data-testid="preview-audience">{p.audience.words}</dd>
        {p.template ? (
          <>
            <dt>Template</dt>
            <dd>
              {p.template.name}
              {p.template.language ? ` (${p.template.language})` : ''}
            </dd>
            <dt>Sender</dt>
            <dd data-testid="preview-sender">{p.sender ? `${p.sender.display_name} (${p.sender.phone})` : (p.sender_problem ?? '—')}</dd>
          </>
        ) : null}
      </dl>
      {p.template ? (
        p.message !== null ? (
          <>
            <p>{p.sample?.from === 'staged' ? `The message as sent to ${who}:` : `The message as ${who} would get it (the first person evaluate found):`}</p>
            {p.template.header ? <p class="preview-message">{p.template.header}</p> : null}
            <p class="preview-message" data-testid="preview-message">
              {p.message}
            </p>
          </>
        ) : p.template.body ? (
          <>
            <p>The template's text (nobody in the audience to fill it for yet):</p>
            <p class="preview-message" data-testid="preview-message">
              {p.template.body}
            </p>
          </>
        ) : (
          <p class="fix">The template “{p.template.name}” is not approved in this workspace, so there is no text to show.</p>
        )
      ) : (
        <>
          {who ? <p>{p.sample?.from === 'staged' ? `The call as placed to ${who}:` : `The call as ${who} would get it:`}</p> : null}
          {p.purpose ? (
            <p class="preview-message" data-testid="preview-message">
              <strong>Purpose:</strong> {p.purpose}
            </p>
          ) : null}
          {p.script ? (
            <p class="preview-message">
              <strong>Script:</strong> {p.script}
            </p>
          ) : null}
        </>
      )}
    </div>
  );
}
