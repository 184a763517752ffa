import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { Delivery, WebhookEndpoint } from '../api/types';
import { ActionButton, ConfirmDialog, ErrorNote, Listing, ShownOnce, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState } from '../components/forms';
import { useAction, usePoll } from '../hooks';

/** Endpoints, their deliveries with every attempt, replay, test ping and secret rotation. */
export function WebhooksPage({ ws }: { ws: string }) {
  const endpoints = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/webhooks', { params: { path: { workspace_id: ws } } }))).items,
    10_000,
    [ws],
  );
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<{ label: string; value: string }>();
  const create = useAction();
  return (
    <>
      <h1>Webhooks</h1>
      {secret ? <ShownOnce label={secret.label} value={secret.value} onDismiss={() => setSecret(undefined)} /> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(async () => {
            const made = (await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/webhooks', { params: { path: { workspace_id: ws } }, body: { url } }))) as { secret: string; url: string };
            setSecret({ label: `Signing secret for ${made.url}`, value: made.secret });
            setUrl('');
            await endpoints.reload();
          });
        }}
      >
        <label for="webhook-url">New endpoint URL</label>
        <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" disabled={create.busy}>
          Add endpoint
        </button>
      </form>
      <Listing
        of={endpoints}
        what="webhook endpoints"
        failed={create.error}
        empty={
          <EmptyState title="No webhook endpoints yet">
            <p>
              A webhook endpoint is a URL of yours that receives each event as it happens (a call's outcome, a message read, a payment made), signed so you can check it
              came from here, and retried for a day until your server answers 2xx.
            </p>
            <p>Add your endpoint's URL in the field above: its signing secret is shown once. Then send it a test event from its panel.</p>
          </EmptyState>
        }
      >
        {(rows) => rows.map((e) => <Endpoint key={e.webhook_id} ws={ws} endpoint={e} onSecret={(value) => setSecret({ label: `New signing secret for ${e.url}`, value })} />)}
      </Listing>
    </>
  );
}

function Endpoint({ ws, endpoint, onSecret }: { ws: string; endpoint: WebhookEndpoint; onSecret: (secret: string) => void }) {
  const path = { workspace_id: ws, webhook_id: endpoint.webhook_id };
  const deliveries = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}/deliveries', { params: { path, query: { limit: 20 } } }))),
    5_000,
    [ws, endpoint.webhook_id],
  );
  const [open, setOpen] = useState<Delivery>();
  const [rotateAsk, setRotateAsk] = useState(false);
  const action = useAction();
  const showDelivery = (d: Delivery) =>
    action.run(async () =>
      setOpen((await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path: { ...path, delivery_id: d.delivery_id } } })))),
    );
  const columns: Column<Delivery>[] = [
    { label: 'Event', cell: (d) => d.event_type },
    { label: 'Trigger', cell: (d) => d.trigger },
    { label: 'Status', cell: (d) => d.status },
    { label: 'Attempts', num: true, cell: (d) => d.attempt_count },
    { label: 'Last answer', cell: (d) => d.last_status_code ?? d.last_error ?? '—' },
    { label: 'Created', cell: (d) => <When at={d.created_at} /> },
    {
      label: 'Actions',
      cell: (d) => (
        <>
          <button type="button" onClick={() => void showDelivery(d)}>
            Attempts<span class="visually-hidden"> of {d.delivery_id}</span>
          </button>{' '}
          <ActionButton
            action={action}
            run={async () => {
              await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}/replay', { params: { path }, body: { event_id: d.event_id } }));
              await deliveries.reload();
            }}
          >
            Replay<span class="visually-hidden"> {d.event_id}</span>
          </ActionButton>
        </>
      ),
    },
  ];
  return (
    <section class="endpoint" aria-label={`Endpoint ${endpoint.url}`}>
      <h2>{endpoint.url}</h2>
      <p>
        {endpoint.enabled ? 'Enabled' : 'Disabled'}; events: {endpoint.event_types.length ? endpoint.event_types.join(', ') : 'all'}
        {endpoint.previous_secret_expires_at ? (
          <>
            ; the previous secret also signs until <When at={endpoint.previous_secret_expires_at} />
          </>
        ) : null}
      </p>
      <div class="controls">
        <ActionButton
          action={action}
          run={async () => {
            await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}/test', { params: { path } }));
            await deliveries.reload();
          }}
        >
          Send test ping
        </ActionButton>
        <button type="button" disabled={action.busy} onClick={() => setRotateAsk(true)}>
          Rotate secret
        </button>
      </div>
      <ErrorNote error={action.error ?? deliveries.error} />
      {deliveries.data?.items.length ? (
        <DataTable caption="Recent deliveries" showCaption columns={columns} rows={deliveries.data.items} rowKey={(d) => d.delivery_id} />
      ) : (
        <p>No deliveries yet.</p>
      )}
      {open ? (
        <section aria-label="Delivery attempts">
          <h3>Attempts of {open.delivery_id}</h3>
          <ol>
            {(open.attempts ?? []).map((a) => (
              <li key={a.attempt}>
                #{a.attempt} <When at={a.attempted_at} />: {a.status_code ?? a.error ?? 'no answer'}
                {a.duration_ms != null ? ` in ${a.duration_ms} ms` : ''}
              </li>
            ))}
          </ol>
          <button type="button" onClick={() => setOpen(undefined)}>
            Close attempts
          </button>
        </section>
      ) : null}
      {rotateAsk ? (
        <ConfirmDialog
          title="Issue a new signing secret?"
          confirmLabel="Rotate secret"
          dismissLabel="Keep the current one"
          onCancel={() => setRotateAsk(false)}
          onConfirm={() => {
            setRotateAsk(false);
            void action.run(async () => {
              const rotated = (await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}/rotate-secret', { params: { path } }))) as { secret: string };
              onSecret(rotated.secret);
            });
          }}
        >
          <p>
            The new secret is shown once. The current one keeps signing beside it for 24 hours, so a receiver has a day to switch; after that only the new one signs
            deliveries to {endpoint.url}.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
