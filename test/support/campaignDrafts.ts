import type { Db } from 'mongodb';
import type { CampaignDoc } from '../../src/campaigns/campaign';
import { draftCampaign, insertDraft, type CampaignRequest } from '../../src/campaigns/createCampaign';

/**
 * The WhatsApp broadcast tests and benchmarks draft: the demo template `order_update` (three
 * body variables), existing customers, to nobody until `overrides` (whole fields) say whom.
 * Kept free of test-only imports, so the benchmarks can use it too.
 */
export function broadcastRequest(overrides: Partial<CampaignRequest> = {}): CampaignRequest {
  return {
    name: 'Broadcast',
    channel: 'whatsapp',
    audience: { kind: 'contact_ids', contact_ids: [], tags: [] },
    template: { name: 'order_update', language: null, variables: ['{{contact.name}}', 'A-1', 'Friday'] },
    agent_id: null,
    purpose: null,
    script: null,
    capture: null,
    call_back_incomplete: false,
    schedule: {},
    consent: { basis: 'existing_customer', note: null },
    sender_id: null,
    metadata: {},
    ...overrides,
  };
}

/** Drafts `request` and inserts the draft, as POST /campaigns does below the API; a refused draft throws. */
export async function insertDrafted(db: Db, request: CampaignRequest, context: Parameters<typeof draftCampaign>[1]): Promise<CampaignDoc> {
  const drafted = draftCampaign(request, context);
  if (drafted.kind !== 'drafted') throw new Error(`draft refused: ${JSON.stringify(drafted)}`);
  await insertDraft(db, drafted);
  return drafted.campaign;
}
