import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { Listing, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState, PageHead } from '../components/forms';
import { usePoll } from '../hooks';
import { Link } from '../router';

const columns = (ws: string): Column<Item<'listConsoleCampaigns'>>[] => [
  { label: 'Name', cell: (c) => <Link to={`/w/${ws}/campaigns/${c.campaign_id}`}>{c.name}</Link> },
  { label: 'Channel', cell: (c) => c.channel },
  { label: 'Status', cell: (c) => <span class={`status status-${c.status}`}>{c.status}</span> },
  { label: 'Recipients', num: true, cell: (c) => c.recipients },
  { label: 'Sent', num: true, cell: (c) => c.sent, cellProps: () => ({ 'data-counter': 'sent' }) },
  { label: 'Delivered', num: true, cell: (c) => c.delivered },
  { label: 'Read', num: true, cell: (c) => c.read },
  { label: 'Failed', num: true, cell: (c) => c.failed },
  { label: 'Skipped', num: true, cell: (c) => c.skipped },
  { label: 'Created', cell: (c) => <When at={c.created_at} /> },
];

/** Every campaign of the workspace with its status and counters, refreshed every 3 s. */
export function CampaignsPage({ ws }: { ws: string }) {
  const list = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns', { params: { path: { workspace_id: ws } } }))).items,
    3_000,
    [ws],
  );
  return (
    <>
      <PageHead title="Campaigns" createTo={`/w/${ws}/campaigns/new`} create="New campaign" />
      <Listing
        of={list}
        what="campaigns"
        empty={
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
        }
      >
        {(rows) => (
          <DataTable
            caption="Campaigns with live counters"
            columns={columns(ws)}
            rows={rows}
            rowKey={(c) => c.campaign_id}
            rowProps={(c) => ({ 'data-campaign': c.campaign_id })}
          />
        )}
      </Listing>
    </>
  );
}
