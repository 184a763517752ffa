import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { Delivery, EventType, WebhookChange, WebhookEndpoint } from '../api/types';
import { ActionButton, ConfirmDialog, ErrorNote, Listing, ShownOnce, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState } from '../components/forms';
import { useAction, usePoll } from '../hooks';

/** The event types an endpoint can be given, as the server lists them. */
const loadEventTypes = async () => (await unwrap(api.GET('/console/v1/event-types'))).items;

/**
 * Checkboxes of the event types; none ticked means every type, including ones added later (as
 * the server stores it: an empty list).
 */
function EventChoice({ legend, types, chosen, onChange }: { legend: string; types: string[]; chosen: Set<string>; onChange: (next: Set<string>) => void }) {
  return (
    <fieldset class="event-choice">
      <legend>{legend}</legend>
      <p class="muted">None ticked: every event, including kinds added later.</p>
      {types.map((t) => (
        <label key={t} class="scope">
          <input
            type="checkbox"
            checked={chosen.has(t)}
            onChange={(e) => {
              const next = new Set(chosen);
              if ((e.currentTarget as HTMLInputElement).checked) next.add(t);
              else next.delete(t);
              onChange(next);
            }}
          />{' '}
          {t}
        </label>
      ))}
    </fieldset>
  );
}

/** "97% of 150 attempts answered 2xx in the last 24 hours", or that nothing was sent. */
function successRateText({ percent, attempts, succeeded, hours }: WebhookEndpoint['success_rate']): string {
  if (percent === null) return `nothing sent in the last ${hours} hours`;
  return `${percent}% answered 2xx (${succeeded} of ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} in the last ${hours} hours)`;
}

/** Endpoints with their events and success rate, their deliveries with every attempt, replay, test ping, secret rotation, disable and delete. */
export function WebhooksPage({ ws }: { ws: string }) {
  const endpoints = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/webhooks', { params: { path: { workspace_id: ws } } }))).items,
    10_000,
    [ws],
  );
  const eventTypes = usePoll(loadEventTypes, 0, []);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<string>>(new Set());
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
            const body = { url, event_types: [...events] as EventType[] };
            const made = await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/webhooks', { params: { path: { workspace_id: ws } }, body }));
            setSecret({ label: `Signing secret for ${made.url}`, value: made.secret });
            setUrl('');
            setEvents(new Set());
            await endpoints.reload();
          });
        }}
      >
        <label for="webhook-url">New endpoint URL</label>
        <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
        <EventChoice legend="Events it gets" types={eventTypes.data ?? []} chosen={events} onChange={setEvents} />
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
        {(rows) =>
          rows.map((e) => (
            <Endpoint
              key={e.webhook_id}
              ws={ws}
              endpoint={e}
              eventTypes={eventTypes.data ?? []}
              onSecret={(value) => setSecret({ label: `New signing secret for ${e.url}`, value })}
              onChanged={endpoints.reload}
            />
          ))
        }
      </Listing>
    </>
  );
}

function Endpoint({
  ws,
  endpoint,
  eventTypes,
  onSecret,
  onChanged,
}: {
  ws: string;
  endpoint: WebhookEndpoint;
  eventTypes: string[];
  onSecret: (secret: string) => void;
  /** The endpoint was changed or deleted: the list reloads. */
  onChanged: () => Promise<void>;
}) {
  const path = { workspace_id: ws, webhook_id: endpoint.webhook_id };
  const deliveries = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}/deliveries', { params: { path, query: { limit: 20 } } }))),
    5_000,
    [ws, endpoint.webhook_id],
  );
  const [open, setOpen] = useState<Delivery>();
  const [rotateAsk, setRotateAsk] = useState(false);
  const [deleteAsk, setDeleteAsk] = useState(false);
  /** The events being chosen anew, while the editor is open. */
  const [editing, setEditing] = useState<Set<string>>();
  const action = useAction();
  const change = (body: WebhookChange) =>
    action.run(async () => {
      await unwrap(api.PATCH('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}', { params: { path }, body }));
      setEditing(undefined);
      await onChanged();
    });
  const showDelivery = (d: Delivery) =>
    action.run(async () =>
      setOpen((await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path: { ...path, delivery_id: d.delivery_id } } })))),
    );
  const columns: Column<Delivery>[] = [
    { label: 'Event', cell: (d) => d.event_type },
    { label: 'Trigger', cell: (d) => d.trigger },
    {
      label: 'Status',
      cell: (d) =>
        d.status === 'pending' && d.next_attempt_at ? (
          <span>
            pending, next try <When at={d.next_attempt_at} />
          </span>
        ) : (
          d.status
        ),
    },
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
      <dl class="facts">
        <dt>State</dt>
        <dd>{endpoint.enabled ? 'Enabled' : 'Disabled: nothing is sent to it; a delivery waiting for a retry ends cancelled at its next try'}</dd>
        <dt>Success rate</dt>
        <dd>{successRateText(endpoint.success_rate)}</dd>
        <dt>Events</dt>
        <dd>{endpoint.event_types.length ? endpoint.event_types.join(', ') : 'all, including kinds added later'}</dd>
      </dl>
      {endpoint.previous_secret_expires_at ? (
        <p>
          The secret was rotated; the previous secret also signs until <When at={endpoint.previous_secret_expires_at} />.
        </p>
      ) : null}
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
        <button type="button" disabled={action.busy} onClick={() => setEditing(new Set(endpoint.event_types))}>
          Change events
        </button>
        <button type="button" disabled={action.busy} onClick={() => void change({ enabled: !endpoint.enabled })}>
          {endpoint.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" disabled={action.busy} onClick={() => setRotateAsk(true)}>
          Rotate secret
        </button>
        <button type="button" disabled={action.busy} onClick={() => setDeleteAsk(true)}>
          Delete
        </button>
      </div>
      {editing ? (
        <form
          aria-label={`Events of ${endpoint.url}`}
          onSubmit={(e) => {
            e.preventDefault();
            void change({ event_types: [...editing] as EventType[] });
          }}
        >
          <EventChoice legend={`Events ${endpoint.url} gets`} types={eventTypes} chosen={editing} onChange={setEditing} />
          <button type="submit" class="primary" disabled={action.busy}>
            Save events
          </button>
          <button type="button" onClick={() => setEditing(undefined)}>
            Keep them
          </button>
        </form>
      ) : null}
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
      {deleteAsk ? (
        <ConfirmDialog
          title={`Delete the endpoint ${endpoint.url}?`}
          confirmLabel="Delete endpoint"
          dismissLabel="Keep it"
          onCancel={() => setDeleteAsk(false)}
          onConfirm={() => {
            setDeleteAsk(false);
            void action.run(async () => {
              await unwrap(api.DELETE('/console/v1/workspaces/{workspace_id}/webhooks/{webhook_id}', { params: { path } }));
              await onChanged();
            });
          }}
        >
          <p>Nothing more is sent to it, deliveries waiting for a retry end cancelled, and its deliveries are no longer shown. A deleted endpoint cannot be restored: Disable pauses it instead.</p>
        </ConfirmDialog>
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
