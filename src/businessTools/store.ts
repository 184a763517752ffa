import type { Collection, Db } from 'mongodb';
import type { PlaceDoc } from '../db/numberedPlaces';

/**
 * A workspace's declared HTTP tools (docs/agents.md "Business tools"). A tool is named by the
 * workspace (its name is what the model calls), so its `_id` is `<workspace>|<name>`: the
 * name is unique per workspace by the unique `_id` (the one claim FerretDB holds under
 * parallel writes), and an agent's turn reads a tool by a point read.
 */

export interface BusinessToolDoc {
  /** `<tenant_id>|<name>`. */
  _id: string;
  tenant_id: string;
  name: string;
  description: string;
  /** The parameters' JSON Schema as JSON text: a schema's `$`-keys cannot be MongoDB field names. */
  parameters: string;
  url: string;
  timeout_ms: number;
  /** `whsec_…`, signs every call as a webhook is signed; shown once, when the tool is created. */
  secret: string;
  created_at: Date;
}

export interface BusinessToolPlaceDoc extends PlaceDoc {
  tool_id: string;
  /** The create that took it (two creates of one name each take one before one wins the name). */
  claim: string;
  taken_at: Date;
}

export function businessToolCollections(db: Db): { tools: Collection<BusinessToolDoc>; places: Collection<BusinessToolPlaceDoc> } {
  return {
    tools: db.collection<BusinessToolDoc>('business_tools'),
    places: db.collection<BusinessToolPlaceDoc>('business_tool_places'),
  };
}

export const businessToolId = (tenantId: string, name: string): string => `${tenantId}|${name}`;

export async function findBusinessTool(db: Db, tenantId: string, name: string): Promise<BusinessToolDoc | null> {
  const doc = await businessToolCollections(db).tools.findOne({ _id: businessToolId(tenantId, name) });
  return doc?.tenant_id === tenantId ? doc : null;
}

/** The workspace's tools by name. At most `maxToolsPerWorkspace`: one scan. */
export async function listBusinessTools(db: Db, tenantId: string): Promise<BusinessToolDoc[]> {
  return businessToolCollections(db).tools.find({ tenant_id: tenantId }).sort({ _id: 1 }).toArray();
}
