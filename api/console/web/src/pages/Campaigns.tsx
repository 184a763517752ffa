import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { CHANNEL_CHOICES, type ChannelFacts } from '../campaignChannels';
import { CampaignStatus } from '../components/CampaignStatus';
import { Listing, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState, PageHead } from '../components/forms';
import { usePoll } from '../hooks';
import { Link } from '../router';

type Row = Item<'listConsoleCampaigns'>;

/** The columns of one channel's table: its own progress counters (campaignChannels.ts), so a call campaign never shows Delivered or Read. */
const columns = (ws: string, facts: ChannelFacts): Column<Row>[] => [
  { label: 'Name', cell: (c) => <Link to={`/w/${ws}/campaigns/${c.campaign_id}`}>{c.name}</Link> },
  { label: 'Status', cell: (c) => <CampaignStatus status={c.status} waitingUntil={c.waiting_until} timeZone={c.schedule.timezone} /> },
  { label: 'Recipients', num: true, cell: (c) => (c.status === 'draft' ? '—' : c.recipients) },
  ...facts.listColumns.map(
    ({ label, counter }): Column<Row> => ({ label, num: true, cell: (c) => c[counter], cellProps: () => ({ 'data-counter': counter }) }),
  ),
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
        {(rows) =>
          // One table per channel, each with its channel's own columns.
          CHANNEL_CHOICES.filter(([channel]) => rows.some((c) => c.channel === channel)).map(([channel, facts]) => (
            <section key={channel} aria-label={facts.listTitle} data-channel={channel}>
              <h2>{facts.listTitle}</h2>
              <DataTable
                caption={`${facts.listTitle} with live counters`}
                columns={columns(ws, facts)}
                rows={rows.filter((c) => c.channel === channel)}
                rowKey={(c) => c.campaign_id}
                rowProps={(c) => ({ 'data-campaign': c.campaign_id })}
              />
            </section>
          ))
        }
      </Listing>
    </>
  );
}
