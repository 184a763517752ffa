import { api, unwrap } from '../api/client';
import { ErrorNote, Loading, When } from '../components/common';
import { usePoll } from '../hooks';
import { Link } from '../router';

/** Every campaign of the workspace with its status and counters, refreshed every 3 s. */
export function CampaignsPage({ ws }: { ws: string }) {
  const list = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns', { params: { path: { workspace_id: ws } } }))).items,
    3_000,
    [ws],
  );
  return (
    <>
      <h1>Campaigns</h1>
      <p>
        To reach people who are not contacts yet, <Link to={`/w/${ws}/lists`}>upload a list</Link> (a CSV of phone numbers, names and any other columns) and use it
        as a campaign’s audience.
      </p>
      <ErrorNote error={list.error} />
      {!list.data ? (
        <Loading what="campaigns" />
      ) : list.data.length === 0 ? (
        <p>No campaigns yet. Create one with POST /api/v1/campaigns.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Campaigns with live counters</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Channel</th>
              <th scope="col">Status</th>
              <th scope="col">Recipients</th>
              <th scope="col">Sent</th>
              <th scope="col">Delivered</th>
              <th scope="col">Read</th>
              <th scope="col">Failed</th>
              <th scope="col">Skipped</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((c) => (
              <tr key={c.campaign_id} data-campaign={c.campaign_id}>
                <td>
                  <Link to={`/w/${ws}/campaigns/${c.campaign_id}`}>{c.name}</Link>
                </td>
                <td>{c.channel}</td>
                <td>
                  <span class={`status status-${c.status}`}>{c.status}</span>
                </td>
                <td class="num">{c.recipients}</td>
                <td class="num" data-counter="sent">{c.sent}</td>
                <td class="num">{c.delivered}</td>
                <td class="num">{c.read}</td>
                <td class="num">{c.failed}</td>
                <td class="num">{c.skipped}</td>
                <td>
                  <When at={c.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
