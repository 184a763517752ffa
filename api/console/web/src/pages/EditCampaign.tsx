import { api, unwrap } from '../api/client';
import { ErrorNote, Loading } from '../components/common';
import { usePoll } from '../hooks';
import { Link } from '../router';
import { NewCampaignPage } from './NewCampaign';

/** A draft's edit: the new-campaign form started from the draft's request; a campaign already launched says to duplicate it. */
export function EditCampaignPage({ ws, id }: { ws: string; id: string }) {
  const draft = usePoll(
    async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/request', { params: { path: { workspace_id: ws, campaign_id: id } } })),
    0,
    [ws, id],
  );
  if (!draft.data) return draft.error ? <ErrorNote error={draft.error} /> : <Loading what="the draft" />;
  if (draft.data.status !== 'draft') {
    return (
      <p class="fix" data-testid="not-a-draft">
        This campaign is {draft.data.status}: only a draft can be edited. Duplicate it from <Link to={`/w/${ws}/campaigns/${id}`}>its page</Link> to make a draft with the
        same settings.
      </p>
    );
  }
  return <NewCampaignPage ws={ws} draft={draft.data} />;
}
