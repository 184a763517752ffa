import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { takeNumberedPlace } from '../db/numberedPlaces';
import { checkWebhookUrl, newSigningSecret } from '../webhooks';
import { BUSINESS_TOOL_LIMITS as L, RESERVED_TOOL_NAMES } from './limits';
import { schemaProblem } from './parametersSchema';
import { BusinessToolRefusal } from './refusal';
import { businessToolCollections, businessToolId, findBusinessTool, type BusinessToolDoc } from './store';

/**
 * The console's actions on business tools: declare one, delete one. A declaration is checked
 * whole before anything is written (a reserved name, an unusable schema, a URL that is
 * private or does not resolve, by the webhook URL policy), then takes one of the workspace's
 * places and its name, each a unique insert, so parallel requests cannot pass the limit or
 * declare one name twice.
 */

export interface ToolFields {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  url: string;
  timeout_ms?: number;
}

/** A place older than this whose tool does not exist was taken by a create that died before writing it. */
const ABANDONED_PLACE_MS = 60_000;

function takePlace(db: Db, tenantId: string, toolId: string, claim: string): Promise<boolean> {
  return takeNumberedPlace(businessToolCollections(db).places, tenantId, 'tool', L.maxToolsPerWorkspace, (_id) => ({
    _id,
    tenant_id: tenantId,
    tool_id: toolId,
    claim,
    taken_at: new Date(),
  }));
}

async function freeAbandonedPlaces(db: Db, tenantId: string): Promise<void> {
  const { places, tools } = businessToolCollections(db);
  const held = await places.find({ tenant_id: tenantId }).toArray();
  const stored = new Set((await tools.find({ tenant_id: tenantId }).project<{ _id: string }>({ _id: 1 }).toArray()).map((t) => t._id));
  const abandoned = held.filter((p) => !stored.has(p.tool_id) && Date.now() - p.taken_at.getTime() > ABANDONED_PLACE_MS);
  if (abandoned.length > 0) await places.deleteMany({ _id: { $in: abandoned.map((p) => p._id) } });
}

/** Refuses a URL the webhook policy would refuse (WEBHOOK_ALLOW_PRIVATE_URLS applies alike). */
async function refuseUnusableUrl(url: string, allowPrivate: boolean): Promise<void> {
  const check = await checkWebhookUrl(url, allowPrivate);
  if (check.ok) return;
  if (check.reason === 'webhook_url_unresolvable') {
    throw new BusinessToolRefusal('tool_url_unresolvable', `The tool URL's host ${check.host} could not be resolved.`, { host: check.host });
  }
  throw new BusinessToolRefusal('tool_url_private', `Tool URLs may not point at private, loopback or link-local addresses; ${check.host} is ${check.address}.`, {
    host: check.host,
    address: check.address,
  });
}

export async function createBusinessTool(db: Db, tenantId: string, fields: ToolFields, allowPrivate: boolean, now: Date): Promise<BusinessToolDoc> {
  if (RESERVED_TOOL_NAMES.has(fields.name)) {
    throw new BusinessToolRefusal('tool_name_reserved', `${fields.name} is a built-in tool's name; choose another.`, { name: fields.name });
  }
  const problem = schemaProblem(fields.parameters);
  if (problem) throw new BusinessToolRefusal('invalid_parameters_schema', problem);
  await refuseUnusableUrl(fields.url, allowPrivate);
  const id = businessToolId(tenantId, fields.name);
  if (await findBusinessTool(db, tenantId, fields.name)) {
    throw new BusinessToolRefusal('tool_name_taken', `The workspace already has a tool named ${fields.name}.`, { name: fields.name });
  }
  // Two creates of one name may both take a place before one wins the name: each knows its own by this.
  const claim = randomUUID();
  let placed = await takePlace(db, tenantId, id, claim);
  if (!placed) {
    await freeAbandonedPlaces(db, tenantId);
    placed = await takePlace(db, tenantId, id, claim);
  }
  const { tools, places } = businessToolCollections(db);
  if (!placed) {
    throw new BusinessToolRefusal('tool_limit_reached', `A workspace can declare at most ${L.maxToolsPerWorkspace} tools; delete one first.`, { limit: L.maxToolsPerWorkspace });
  }
  const doc: BusinessToolDoc = {
    _id: id,
    tenant_id: tenantId,
    name: fields.name,
    description: fields.description,
    parameters: JSON.stringify(fields.parameters),
    url: fields.url,
    timeout_ms: fields.timeout_ms ?? L.defaultTimeoutMs,
    secret: newSigningSecret(),
    created_at: now,
  };
  let inserted = false;
  try {
    inserted = await insertIfAbsent(tools, doc);
  } finally {
    // A name taken by a parallel create (or a failed write) gives its place back.
    if (!inserted) await places.deleteMany({ tenant_id: tenantId, claim }).catch(() => undefined);
  }
  if (!inserted) throw new BusinessToolRefusal('tool_name_taken', `The workspace already has a tool named ${fields.name}.`, { name: fields.name });
  return doc;
}

/** False when the workspace has no tool of that name. */
export async function deleteBusinessTool(db: Db, tenantId: string, name: string): Promise<boolean> {
  const { tools, places } = businessToolCollections(db);
  const deleted = await tools.deleteOne({ _id: businessToolId(tenantId, name), tenant_id: tenantId });
  if (deleted.deletedCount === 0) return false;
  await places.deleteMany({ tenant_id: tenantId, tool_id: businessToolId(tenantId, name) });
  return true;
}
