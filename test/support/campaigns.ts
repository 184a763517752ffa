import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import type { Capture } from '../../src/calls/types';
import type { CampaignDoc } from '../../src/campaigns/campaign';
import { calleeScript, calleeScripts, scriptId, type CalleeScript } from '../../src/providers/voice/simulatorScript';
import { draftCampaign, insertDraft } from '../../src/campaigns/createCampaign';
import { contactCollections, type ContactDoc } from '../../src/contacts/contacts';
import { contactTagEntries, contactTagEntriesCollection } from '../../src/contacts/tagEntries';
import { collections, type WorkspaceDoc } from '../../src/db/collections';
import { ensureEveryIndex } from '../../src/main/indexes';
import { insertManyIfAbsent } from '../../src/db/insertIfAbsent';
import { seedDemoWorkspace } from '../../src/demo/seedDemoWorkspace';
import { broadcastRequest, insertDrafted } from './campaignDrafts';
import { openTestDb, testConfig, uniqueName } from './env';
import type { SendAttempt, SendRequest, WhatsAppProvider } from '../../src/messaging/whatsAppSender';

/** A private database with the indexes and one demo-shaped workspace, for tests below the API. */
export async function openDbWithWorkspace(): Promise<{ db: Awaited<ReturnType<typeof openTestDb>>; workspace: WorkspaceDoc }> {
  const db = await openTestDb(testConfig());
  await ensureEveryIndex(db.db);
  const id = uniqueName('ws');
  await seedDemoWorkspace(db.db, { workspaceId: id, name: id, environment: 'test' });
  return { db, workspace: (await collections(db.db).workspaces.findOne({ _id: id }))! };
}

/** `count` contacts written directly (the contacts module's rules are tested elsewhere) with their tag entries, phones unique per call. */
export async function insertContacts(db: Db, tenantId: string, count: number): Promise<ContactDoc[]> {
  const tag = randomBytes(4).toString('hex');
  const prefix = String(parseInt(tag, 16) % 10_000).padStart(4, '0');
  const at = new Date();
  const docs: ContactDoc[] = Array.from({ length: count }, (_, i) => ({
    _id: `cnt_${tag}${String(i).padStart(16, '0')}`,
    tenant_id: tenantId,
    name: `Person ${i}`,
    email: null,
    phone: `+919${prefix}${String(i).padStart(5, '0')}`,
    external_id: null,
    tags: [tag],
    created_at: at,
    updated_at: at,
  }));
  for (let i = 0; i < docs.length; i += 1_000) await contactCollections(db).contacts.insertMany(docs.slice(i, i + 1_000));
  // With their tag entries, as the contacts module writes them: a worker that backfilled them reads segments from them alone.
  // A worker starting alongside may backfill some of these same entries first (CI saw it), so a duplicate is already right.
  const entries = docs.flatMap(contactTagEntries);
  for (let i = 0; i < entries.length; i += 1_000) await insertManyIfAbsent(contactTagEntriesCollection(db), entries.slice(i, i + 1_000));
  return docs;
}

export interface DraftOptions {
  contactIds: string[];
  schedule?: { start_at?: Date | null; timezone?: string; throttle_per_minute?: number; send_window_start_hour?: number; send_window_end_hour?: number; recipient_time_zone?: boolean };
  consent?: boolean;
  /** 'Broadcast' unless given. */
  name?: string;
}

/** A WhatsApp draft of the demo template `order_update` (three body variables). */
export async function insertCampaignDraft(db: Db, tenantId: string, options: DraftOptions): Promise<CampaignDoc> {
  const workspace = (await collections(db).workspaces.findOne({ _id: tenantId }))!;
  const request = broadcastRequest({
    ...(options.name === undefined ? {} : { name: options.name }),
    audience: { kind: 'contact_ids', contact_ids: options.contactIds, tags: [] },
    schedule: options.schedule ?? {},
    ...(options.consent === false ? { consent: null } : {}),
  });
  return insertDrafted(db, request, { workspace, createdBy: { kind: 'api_key', id: 'key_test' }, now: new Date() });
}

/** A provider that accepts every send and counts them per recipient (no delivery statuses). */
export class CountingWhatsAppProvider implements WhatsAppProvider {
  readonly name = 'simulator' as const;
  readonly sends = new Map<string, number>();

  send(request: SendRequest): Promise<SendAttempt> {
    this.sends.set(request.to, (this.sends.get(request.to) ?? 0) + 1);
    return Promise.resolve({ ok: true, messageId: `wamid.TEST${randomBytes(12).toString('hex').toUpperCase()}` });
  }

  total(): number {
    return [...this.sends.values()].reduce((a, b) => a + b, 0);
  }
}

/**
 * A zone whose local hour at `at` is 11:00 to 17:59, so a campaign launched then starts at
 * once and has an hour or more before either window closes: the calls' 10:00 to 19:00 and
 * the messages' 09:00 to 21:00 (Etc/GMT zones name the offset with the opposite sign). The
 * hour 19 it once allowed is shut for calls: between 07:00 and 07:59 UTC it chose a zone
 * reading 19:xx and a call campaign launched then waited for the next morning.
 */
/**
 * Noon UTC tomorrow: a scheduled start inside the default 09:00–21:00 window in UTC whatever
 * the hour now, so a launch answers no `window_closed` notice.
 */
export function tomorrowNoonUtc(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 12));
}

/**
 * A zone whose wall clock reads 21:xx at `at`: after the 09:00–21:00 send window and the
 * 10:00–19:00 calling window, both of which next open the following morning.
 */
export function zoneAtNineInTheEvening(at: Date): string {
  let offset = (21 - at.getUTCHours() + 24) % 24;
  if (offset > 14) offset -= 24;
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

export function zoneOpenAt(at: Date): string {
  const hour = at.getUTCHours();
  const offset = [...Array(27).keys()].map((i) => i - 12).find((n) => (hour + n + 24) % 24 >= 11 && (hour + n + 24) % 24 < 18)!;
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** The capture the call campaign tests use: two required questions, then an optional one. */
export const VOICE_TEST_CAPTURE: Capture = {
  goal: 'Confirm the delivery',
  fields: [
    { key: 'address_ok', label: 'Is the delivery address correct', type: 'yes_no', hint: null, options: [], required: true, display: 'auto' },
    { key: 'slot', label: 'Preferred slot', type: 'choice', hint: null, options: ['Morning', 'Evening'], required: true, display: 'bars' },
    { key: 'notes', label: 'Any notes', type: 'text', hint: null, options: [], required: false, display: 'auto' },
  ],
  success: { field: 'address_ok', equals: 'yes' },
};

export interface VoiceDraftOptions {
  contactIds: string[];
  agentId: string;
  schedule?: DraftOptions['schedule'];
  callBackIncomplete?: boolean;
  purpose?: string | null;
  capture?: Capture | null;
}

/** A call campaign draft with `VOICE_TEST_CAPTURE` unless told otherwise. */
export async function insertVoiceCampaignDraft(db: Db, tenantId: string, options: VoiceDraftOptions): Promise<CampaignDoc> {
  const workspace = (await collections(db).workspaces.findOne({ _id: tenantId }))!;
  const drafted = draftCampaign(
    {
      name: 'Delivery check',
      channel: 'voice',
      audience: { kind: 'contact_ids', contact_ids: options.contactIds, tags: [] },
      template: null,
      agent_id: options.agentId,
      purpose: options.purpose === undefined ? 'your delivery, {{name}}' : options.purpose,
      script: null,
      capture: options.capture === undefined ? VOICE_TEST_CAPTURE : options.capture,
      call_back_incomplete: options.callBackIncomplete ?? false,
      schedule: options.schedule ?? {},
      consent: null,
      sender_id: null,
      metadata: {},
    },
    { workspace, createdBy: { kind: 'api_key', id: 'key_test' }, now: new Date() },
  );
  if (drafted.kind !== 'drafted') throw new Error(`draft refused: ${JSON.stringify(drafted)}`);
  await insertDraft(db, drafted);
  return drafted.campaign;
}

/** Scripts the simulated callee at `to` (as the console does). */
export async function scriptCallee(db: Db, tenantId: string, to: string, script: Partial<CalleeScript>): Promise<void> {
  await calleeScripts(db).replaceOne(
    { _id: scriptId(tenantId, to) },
    { tenant_id: tenantId, destination: to.replace(/\D/g, ''), script: calleeScript.parse(script), updated_at: new Date() },
    { upsert: true },
  );
}

/**
 * A callee who answers the first question of `VOICE_TEST_CAPTURE` (with a purpose line) and
 * then hangs up: the line drops 9 s in, after the answer at 8.25 s.
 */
export const DROPS_AFTER_FIRST_ANSWER: Partial<CalleeScript> = { talk_seconds: 9, end: 'caller_hangup' };
