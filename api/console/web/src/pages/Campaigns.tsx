import { api, unwrap } from '../api/client';
import { ErrorNote, Loading, When } from '../components/common';
import { EmptyState } from '../components/forms';
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
      <div class="page-head">
        <h1>Campaigns</h1>
        <Link to={`/w/${ws}/campaigns/new`} class="button">
          New campaign
        </Link>
      </div>
      <ErrorNote error={list.error} />
      {!list.data ? (
        <Loading what="campaigns" />
      ) : list.data.length === 0 ? (
        <EmptyState title="No campaigns yet">
          <p>
            A campaign reaches a list of people once: a WhatsApp message from an approved template, or an AI phone call that asks your questions. You create a draft,
            evaluate it to see who would be reached, then launch it.
          </p>
          <p>
            <Link to={`/w/${ws}/campaigns/new`} class="button">
              Create the first campaign
            </Link>
          </p>
          <p>
            Or from a terminal: <code>npm run console -- campaigns create {ws} --name … --tags vip --template …</code>, or from your systems with{' '}
            <code>POST /api/v1/campaigns</code>.
          </p>
        </EmptyState>
      ) : (
        <table class="stack">
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
                <td data-label="Name">
                  <Link to={`/w/${ws}/campaigns/${c.campaign_id}`}>{c.name}</Link>
                </td>
                <td data-label="Channel">{c.channel}</td>
                <td data-label="Status">
                  <span class={`status status-${c.status}`}>{c.status}</span>
                </td>
                <td data-label="Recipients" class="num">{c.recipients}</td>
                <td data-label="Sent" class="num" data-counter="sent">{c.sent}</td>
                <td data-label="Delivered" class="num">{c.delivered}</td>
                <td data-label="Read" class="num">{c.read}</td>
                <td data-label="Failed" class="num">{c.failed}</td>
                <td data-label="Skipped" class="num">{c.skipped}</td>
                <td data-label="Created">
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
