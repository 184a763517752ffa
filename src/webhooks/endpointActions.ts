import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { takeNumberedPlace, type PlaceDoc } from '../db/numberedPlaces';
import { newId } from '../domain/ids';
import { eventsCollection, newEventDoc } from '../events/eventStore';
import { PING_EVENT_TYPE } from '../events/types';
import { deliveryWorkflowId, replayWorkflowId } from './contracts';
import type { WebhookDeliveryDoc } from './deliveries';
import { forgetEndpoints } from './endpointDirectory';
import { MAX_ENDPOINTS_PER_WORKSPACE, newWebhookEndpoint, PREVIOUS_SECRET_GRACE_MS, webhookEndpoints, type WebhookEndpointDoc } from './endpoints';
import { WebhookRefusal } from './refusal';
import { newSigningSecret } from './signature';
import { startDelivery } from './startDelivery';
import { checkWebhookUrl } from './urlPolicy';

/**
 * The console's webhook endpoint actions (docs/webhooks.md): add, change, rotate the secret,
 * delete, ping and replay. Each answers the endpoint (or delivery), null when the endpoint is
 * not the workspace's, or throws a WebhookRefusal. Every change forgets the workspace's
 * cached endpoints so the next fan-out reads them again.
 */

export interface EndpointFields {
  url: string;
  event_types: string[];
  enabled: boolean;
  description: string | null;
}

/** Where deliveries start: the Temporal client and the task queue of the delivery workflows. */
export interface DeliveryStarter {
  temporal: Client;
  taskQueue: string;
}

/** Refuses a URL whose host is private, loopback or link-local, or does not resolve. */
export async function refusePrivateUrl(url: string, allowPrivate: boolean): Promise<void> {
  const check = await checkWebhookUrl(url, allowPrivate);
  if (check.ok) return;
  if (check.reason === 'webhook_url_unresolvable') {
    throw new WebhookRefusal(check.reason, `The webhook URL's host ${check.host} could not be resolved.`, { host: check.host });
  }
  throw new WebhookRefusal(check.reason, `Webhook URLs may not point at private, loopback or link-local addresses; ${check.host} is ${check.address}.`, {
    host: check.host,
    address: check.address,
  });
}

export async function findEndpoint(db: Db, tenantId: string, webhookId: string): Promise<WebhookEndpointDoc | null> {
  return webhookEndpoints(db).findOne({ _id: webhookId, tenant_id: tenantId });
}

/** The workspace's endpoints, oldest first (at most MAX_ENDPOINTS_PER_WORKSPACE). */
export function workspaceEndpoints(db: Db, tenantId: string): Promise<WebhookEndpointDoc[]> {
  return webhookEndpoints(db).find({ tenant_id: tenantId }).sort({ created_at: 1, _id: 1 }).toArray();
}

/** One of a workspace's MAX_ENDPOINTS_PER_WORKSPACE places, held by an endpoint (the limit as claims: src/db/numberedPlaces.ts). */
interface EndpointPlaceDoc extends PlaceDoc {
  endpoint_id: string;
  taken_at: Date;
}

export function endpointPlaces(db: Db): Collection<EndpointPlaceDoc> {
  return db.collection<EndpointPlaceDoc>('webhook_endpoint_places');
}

/** A place older than this whose endpoint does not exist was taken by a create that died before writing it. */
const ABANDONED_PLACE_MS = 60_000;

/**
 * Makes the workspace's places match its endpoints before a new one takes a place: an
 * endpoint stored before places existed takes one (two creates doing this at once may give
 * it two, which only refuses sooner, never later), and an abandoned place is given back.
 */
async function reconcilePlaces(db: Db, tenantId: string): Promise<void> {
  const now = Date.now();
  const places = endpointPlaces(db);
  const [held, stored] = await Promise.all([
    places.find({ tenant_id: tenantId }).toArray(),
    webhookEndpoints(db).find({ tenant_id: tenantId }).project<{ _id: string }>({ _id: 1 }).toArray(),
  ]);
  const storedIds = new Set(stored.map((e) => e._id));
  const placed = new Set(held.map((p) => p.endpoint_id));
  const abandoned = held.filter((p) => !storedIds.has(p.endpoint_id) && now - p.taken_at.getTime() > ABANDONED_PLACE_MS);
  if (abandoned.length > 0) await places.deleteMany({ _id: { $in: abandoned.map((p) => p._id) } });
  for (const endpoint of stored) {
    if (placed.has(endpoint._id)) continue;
    await takePlaceFor(db, tenantId, endpoint._id);
  }
}

/**
 * Takes one of the workspace's places for the endpoint; false when all are taken. Stamped with
 * the wall clock, which the abandonment check compares against (a create's `now` is the
 * caller's and may be any time).
 */
function takePlaceFor(db: Db, tenantId: string, endpointId: string): Promise<boolean> {
  return takeNumberedPlace(endpointPlaces(db), tenantId, 'whk', MAX_ENDPOINTS_PER_WORKSPACE, (_id) => ({
    _id,
    tenant_id: tenantId,
    endpoint_id: endpointId,
    taken_at: new Date(),
  }));
}

/** A new endpoint with a fresh secret, within the workspace's limit, which holds under parallel requests. */
export async function createEndpoint(db: Db, tenantId: string, fields: EndpointFields, allowPrivate: boolean, now: Date): Promise<WebhookEndpointDoc> {
  const doc = newWebhookEndpoint({ _id: newId('whk', now), tenant_id: tenantId, ...fields }, now);
  await reconcilePlaces(db, tenantId);
  const placed = await takePlaceFor(db, tenantId, doc._id);
  // The limit is answered before the URL is looked at, as it was when it was a count.
  if (!placed) {
    throw new WebhookRefusal('webhook_limit_reached', `A workspace can have at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints.`, {
      limit: MAX_ENDPOINTS_PER_WORKSPACE,
    });
  }
  try {
    await refusePrivateUrl(fields.url, allowPrivate);
    await webhookEndpoints(db).insertOne(doc);
  } catch (err) {
    await endpointPlaces(db).deleteMany({ tenant_id: tenantId, endpoint_id: doc._id });
    throw err;
  }
  forgetEndpoints(tenantId);
  return doc;
}

/** Changes the named fields; a new URL is checked like a new endpoint's. */
export async function updateEndpoint(
  db: Db,
  tenantId: string,
  webhookId: string,
  change: Partial<EndpointFields>,
  allowPrivate: boolean,
  now: Date,
): Promise<WebhookEndpointDoc | null> {
  if (!(await findEndpoint(db, tenantId, webhookId))) return null;
  if (change.url !== undefined) await refusePrivateUrl(change.url, allowPrivate);
  const updated = await webhookEndpoints(db).findOneAndUpdate({ _id: webhookId, tenant_id: tenantId }, { $set: { ...change, updated_at: now } }, { returnDocument: 'after' });
  if (updated) forgetEndpoints(tenantId);
  return updated;
}

/** A new signing secret; the old one keeps signing for PREVIOUS_SECRET_GRACE_MS. */
export async function rotateEndpointSecret(db: Db, tenantId: string, webhookId: string, now: Date): Promise<WebhookEndpointDoc | null> {
  const current = await findEndpoint(db, tenantId, webhookId);
  if (!current) return null;
  // One rotation replaces a given secret: a unique insert keyed by it has one winner (FerretDB
  // applies the conditional update below non-atomically, so two rotations at once both won it
  // and the first one's new secret, already shown to its caller, was lost).
  if (!(await insertIfAbsent(secretRotations(db), { _id: rotationClaimId(current._id, current.secret), endpoint_id: current._id, at: now }))) {
    throw new WebhookRefusal('webhook_secret_rotating', 'The secret was rotated by another request; try again.');
  }
  // Conditional on the secret read, so two rotations at once cannot both claim the grace slot.
  const updated = await webhookEndpoints(db).findOneAndUpdate(
    { _id: current._id, tenant_id: tenantId, secret: current.secret },
    {
      $set: {
        secret: newSigningSecret(),
        previous_secret: current.secret,
        previous_secret_expires_at: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
        updated_at: now,
      },
    },
    { returnDocument: 'after' },
  );
  if (!updated) throw new WebhookRefusal('webhook_secret_rotating', 'The secret was rotated by another request; try again.');
  return updated;
}

interface SecretRotationDoc {
  /** sha256 of the endpoint and the secret replaced: the secret itself is not copied. */
  _id: string;
  endpoint_id: string;
  at: Date;
}

const secretRotations = (db: Db): Collection<SecretRotationDoc> => db.collection<SecretRotationDoc>('webhook_secret_rotations');
const rotationClaimId = (endpointId: string, secret: string) => createHash('sha256').update(`${endpointId}|${secret}`).digest('hex');

/** Deletes the endpoint; false when it was not the workspace's. */
export async function deleteEndpoint(db: Db, tenantId: string, webhookId: string): Promise<boolean> {
  const result = await webhookEndpoints(db).deleteOne({ _id: webhookId, tenant_id: tenantId });
  if (result.deletedCount === 0) return false;
  await endpointPlaces(db).deleteMany({ tenant_id: tenantId, endpoint_id: webhookId });
  await secretRotations(db).deleteMany({ endpoint_id: webhookId });
  forgetEndpoints(tenantId);
  return true;
}

function enabledOnly(endpoint: WebhookEndpointDoc): void {
  if (!endpoint.enabled) throw new WebhookRefusal('webhook_disabled', 'This webhook endpoint is disabled; enable it first.');
}

/** Sends a `ping` to this endpoint only. */
export async function pingEndpoint(db: Db, starter: DeliveryStarter, tenantId: string, webhookId: string, now: Date): Promise<WebhookDeliveryDoc | null> {
  const endpoint = await findEndpoint(db, tenantId, webhookId);
  if (!endpoint) return null;
  enabledOnly(endpoint);
  // A ping is stored like any event (so it can be replayed and its bytes stay fixed) but
  // marked dispatched: it goes to this endpoint only, never through the fan-out.
  const ping = { ...newEventDoc({ tenantId, type: PING_EVENT_TYPE, dedupeKey: `ping:${newId('png', now)}`, data: { webhook_id: endpoint._id }, createdAt: now }), dispatched_at: now };
  await eventsCollection(db).insertOne(ping);
  return startDelivery(
    db,
    starter.temporal,
    starter.taskQueue,
    { deliveryId: deliveryWorkflowId(ping._id, endpoint._id), tenantId, eventId: ping._id, endpointId: endpoint._id, trigger: 'test', eventType: ping.type },
    now,
  );
}

export type ReplayAnswer = { delivery: WebhookDeliveryDoc } | { missing: 'endpoint' | 'event' };

/** Delivers a stored event of the workspace to this endpoint again, as a delivery of its own. */
export async function replayEvent(db: Db, starter: DeliveryStarter, tenantId: string, webhookId: string, eventId: string, now: Date): Promise<ReplayAnswer> {
  const endpoint = await findEndpoint(db, tenantId, webhookId);
  if (!endpoint) return { missing: 'endpoint' };
  const event = await eventsCollection(db).findOne({ _id: eventId });
  if (!event || event.tenant_id !== tenantId) return { missing: 'event' };
  enabledOnly(endpoint);
  const delivery = await startDelivery(
    db,
    starter.temporal,
    starter.taskQueue,
    { deliveryId: replayWorkflowId(event._id, endpoint._id, newId('rpl', now)), tenantId, eventId: event._id, endpointId: endpoint._id, trigger: 'replay', eventType: event.type },
    now,
  );
  return { delivery };
}
