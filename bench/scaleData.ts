import { createHash } from 'node:crypto';
import type { CallDoc } from '../src/calls/callStore';
import { newCallDoc, deploymentId } from '../src/calls/callStore';
import type { CallOutcome, CallStatus, TranscriptTurn } from '../src/calls/types';
import type { CampaignDoc } from '../src/campaigns/campaign';
import { campaignKeys } from '../src/campaigns/campaignEntries';
import type { CampaignRecipientDoc } from '../src/campaigns/staging';
import { recipientId } from '../src/campaigns/staging';
import type { ContactDoc, ContactIdentityDoc } from '../src/contacts/contacts';
import { contactIdFor } from '../src/contacts/contacts';
import type { ConversationDoc, ConversationMessageDoc } from '../src/conversations/store';
import { conversationIdFor, messageIdFor, previewOf } from '../src/conversations/store';
import { callNumberKey, callEndKeys, callFilterKeys } from '../src/calls/callEntries';
import { recentEntry, transcriptKey } from '../src/conversations/conversationEntries';
import { nameKeys } from '../src/conversations/nameKeys';
import type { EntryDoc } from '../src/db/keyedEntries';
import { dueDateOf, periodLabel } from '../src/dues/cycle';
import { dueIdFor, type DueDoc, type DueStatus, type SubscriberDoc } from '../src/dues/store';
import type { TicketDoc } from '../src/tickets/ticketStore';
import type { WebhookDeliveryDoc } from '../src/webhooks/deliveries';
import { deliveryWorkflowId } from '../src/webhooks/contracts';

/**
 * The documents `npm run seed:scale` writes: each built with the shape, the id scheme and the
 * builders the app itself uses (newCallDoc, contactIdFor, conversationIdFor, messageIdFor,
 * recipientId; time-ordered ids as src/domain/ids.ts makes them), from a seeded generator,
 * so one seed and one anchor time give the same data every run.
 */

/** The issue's year of one busy workspace (issue 36 §1), at SCALE 1. */
export const FULL_SIZES = {
  contacts: 1_000_000,
  calls: 1_000_000,
  /** Calls whose transcript is kept (the newest). */
  transcripts: 100_000,
  conversations: 200_000,
  messages: 2_000_000,
  campaigns: 300,
  largestCampaignRecipients: 200_000,
  otherCampaignRecipients: 500,
  duesSubscribers: 20_000,
  webhookDeliveries: 500_000,
  tickets: 50_000,
} as const;

export type Sizes = Record<keyof typeof FULL_SIZES, number>;

/** Each small workspace holds this share of the big one's sizes (50 of them: a quarter more in all). */
export const SMALL_SHARE = 1 / 200;

export function sizesAt(scale: number): Sizes {
  return Object.fromEntries(Object.entries(FULL_SIZES).map(([k, v]) => [k, Math.max(k === 'campaigns' ? 3 : 1, Math.round(v * scale))])) as Sizes;
}

/** mulberry32: small, fast, and the same numbers for the same seed on every machine. */
export class SeededRandom {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  hex(digits: number): string {
    let out = '';
    while (out.length < digits) out += this.int(0x10000).toString(16).padStart(4, '0');
    return out.slice(0, digits);
  }
}

/** As src/domain/ids.ts's newId, with the random half from the seeded generator. */
export function seededId(prefix: string, at: Date, random: SeededRandom): string {
  return `${prefix}_${at.getTime().toString(16).padStart(12, '0')}${random.hex(12)}`;
}

/** `count` instants spread over [from, to), oldest first, with seeded jitter. */
export function* spreadTimes(count: number, from: Date, to: Date, random: SeededRandom): Generator<Date> {
  const span = to.getTime() - from.getTime();
  const step = span / Math.max(1, count);
  for (let i = 0; i < count; i++) yield new Date(Math.floor(from.getTime() + i * step + random.next() * step));
}

/**
 * The i-th person of a workspace: an Indian mobile number (distinct for every i below 10⁹:
 * multiplying by 7,919, which shares no factor with 10⁹, permutes the digits' space, and the
 * workspace's own offset keeps workspaces apart) and a name.
 */
export function person(tenantId: string, i: number): { phone: string; name: string; email: string } {
  const offset = createHash('sha256').update(tenantId).digest().readUInt32BE(0);
  const digits = (BigInt(i) * 7919n + BigInt(offset)) % 1_000_000_000n;
  const first = FIRST_NAMES[i % FIRST_NAMES.length]!;
  const last = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length]!;
  return { phone: `+919${String(digits).padStart(9, '0')}`, name: `${first} ${last}`, email: `${first}.${last}.${i}@example.in`.toLowerCase() };
}

/** Two people in five gave an email, which their contact's id then derives from. */
const hasEmail = (i: number) => i % 5 < 2;

/** The id of the i-th person's contact, as matchOrCreateContact derives it. */
export function contactIdOf(tenantId: string, i: number): string {
  const p = person(tenantId, i);
  return hasEmail(i) ? contactIdFor(tenantId, 'email', p.email) : contactIdFor(tenantId, 'phone', p.phone);
}

const FIRST_NAMES = ['Aarav', 'Priya', 'Rohan', 'Ananya', 'Vikram', 'Meera', 'Arjun', 'Kavya', 'Sanjay', 'Divya', 'Rahul', 'Isha', 'Karan', 'Neha', 'Aditya', 'Pooja'];
const LAST_NAMES = ['Sharma', 'Iyer', 'Patel', 'Reddy', 'Gupta', 'Nair', 'Singh', 'Menon', 'Rao', 'Das', 'Khan', 'Joshi', 'Bose', 'Pillai'];
const TAGS = ['customer', 'lead', 'vip', 'renewal', 'overdue', 'newsletter', 'delhi', 'mumbai', 'bengaluru'];

export interface WorkspaceRefs {
  tenantId: string;
  agentId: string;
  /** E.164 of the workspace's number. */
  phoneNumber: string;
  senderId: string;
}

/**
 * A contact as matchOrCreateContact leaves it: its id derived from the identity it was created
 * with (the email, else the phone), one identity document per email and phone
 * (`<tenant>|<kind>:<value>`, src/contacts/contacts.ts).
 */
export function contactDocs(ws: WorkspaceRefs, i: number, at: Date, random: SeededRandom): { contact: ContactDoc; identities: ContactIdentityDoc[] } {
  const p = person(ws.tenantId, i);
  const email = hasEmail(i) ? p.email : null;
  const contactId = contactIdOf(ws.tenantId, i);
  const tags = random.next() < 0.6 ? [random.pick(TAGS)] : [random.pick(TAGS), random.pick(TAGS)].filter((t, j, all) => all.indexOf(t) === j);
  const identity = (kind: 'email' | 'phone', value: string): ContactIdentityDoc => ({ _id: `${ws.tenantId}|${kind}:${value}`, tenant_id: ws.tenantId, contact_id: contactId, kind, value, created_at: at });
  return {
    contact: { _id: contactId, tenant_id: ws.tenantId, name: p.name, email, phone: p.phone, external_id: random.next() < 0.2 ? `crm-${i}` : null, tags, created_at: at, updated_at: at },
    identities: email ? [identity('email', email), identity('phone', p.phone)] : [identity('phone', p.phone)],
  };
}

const ENDED: { outcome: CallOutcome; weight: number; answered: boolean }[] = [
  { outcome: 'agent_hangup', weight: 55, answered: true },
  { outcome: 'no_answer', weight: 20, answered: false },
  { outcome: 'busy', weight: 8, answered: false },
  { outcome: 'caller_hangup', weight: 10, answered: true },
  { outcome: 'idle', weight: 3, answered: true },
  { outcome: 'unreachable', weight: 4, answered: false },
];
const WEIGHT = ENDED.reduce((s, e) => s + e.weight, 0);

const TRANSCRIPT: TranscriptTurn[] = [
  { role: 'model', text: 'Namaste, this is the assistant from Acme Deliveries. Am I speaking with the account holder?', at_seconds: 0.4 },
  { role: 'user', text: 'Yes, speaking. Is this about my order?', at_seconds: 4.1 },
  { role: 'model', text: 'It is. Your parcel is out for delivery today between two and five. Will someone be at home?', at_seconds: 6.0 },
  { role: 'user', text: 'My mother will be there, please leave it with her.', at_seconds: 11.7 },
  { role: 'model', text: 'Noted, I will tell the courier. Anything else I can help with?', at_seconds: 14.2 },
  { role: 'user', text: 'No, that is all, thank you.', at_seconds: 18.9 },
];

/** A finished call as the call workflow leaves it (outcome, times, billing), its transcript kept or not. */
export function callDoc(ws: WorkspaceRefs, i: number, at: Date, withTranscript: boolean, campaignId: string | null, random: SeededRandom): CallDoc {
  const p = person(ws.tenantId, i);
  let roll = random.int(WEIGHT);
  const end = ENDED.find((e) => (roll -= e.weight) < 0)!;
  const base = newCallDoc({
    _id: seededId('call', at, random),
    tenant_id: ws.tenantId,
    direction: random.next() < 0.9 ? 'outbound' : 'inbound',
    status: 'ringing',
    to: p.phone,
    from_number: ws.phoneNumber.slice(1),
    agent_id: ws.agentId,
    requested_agent_id: ws.agentId,
    deployment_id: deploymentId(ws.phoneNumber.slice(1), ws.agentId),
    ring_seconds: 30,
    max_call_seconds: 300,
    recording: false,
    created_at: at,
    purpose: 'Confirm the delivery slot',
    metadata: campaignId ? { campaign_id: campaignId } : {},
    reserved_minutes: 5,
  });
  const placed = new Date(at.getTime() + 300);
  const started = end.answered ? new Date(placed.getTime() + 4_000 + random.int(15_000)) : null;
  const talk = end.answered ? 10 + random.int(170) : 0;
  const ended = new Date((started ?? placed).getTime() + (end.answered ? talk * 1000 : 30_000));
  const status: CallStatus = end.outcome === 'unreachable' ? 'failed' : 'completed';
  return {
    ...base,
    status,
    outcome: end.outcome,
    placed_at: placed,
    started_at: started,
    ended_at: ended,
    duration_seconds: end.answered ? talk : 0,
    summary: end.answered ? 'The customer confirmed someone will be home for the delivery.' : null,
    transcript: withTranscript && end.answered ? TRANSCRIPT : null,
    result: end.answered
      ? { ...base.result, state: 'ready', disposition: 'completed', goal_met: 'yes', success: true, summary: 'Delivery slot confirmed.', sentiment: 'positive', read_at: new Date(ended.getTime() + 2_000) }
      : { ...base.result, state: 'ready', disposition: 'unanswered', read_at: ended },
    readings: 1,
    billed_minutes: end.answered ? Math.ceil(talk / 60) : 0,
    step: 9,
    updated_at: new Date(ended.getTime() + 2_000),
  };
}

const LINES = {
  user: ['Hi, where is my order?', 'Can I change the delivery address?', 'Thanks!', 'What are your timings on Sunday?', 'I want to pay my dues', 'Please call me back'],
  model: ['Your order is on its way and should reach you today.', 'Sure, please share the new address.', 'You are welcome!', 'We are open 10 to 6 on Sundays.', 'Here is your payment link.', 'A person from our team will call you shortly.'],
};

/**
 * One WhatsApp conversation and its turns, as the recorder writes them: ids from the dedupe
 * key and the turn's time, every tenth turn a trail row (a lookup the agent made).
 */
export function conversationDocs(ws: WorkspaceRefs, i: number, at: Date, turns: number, random: SeededRandom): { conversation: ConversationDoc; messages: ConversationMessageDoc[] } {
  const p = person(ws.tenantId, i);
  const threadKey = p.phone.replace(/\D/g, '');
  const conversationId = conversationIdFor(ws.tenantId, 'whatsapp', threadKey);
  const messages: ConversationMessageDoc[] = [];
  let t = at.getTime();
  for (let n = 0; n < turns; n++) {
    const trail = n % 10 === 9;
    const role = trail ? 'model' : n % 2 === 0 ? 'user' : 'model';
    const dedupeKey = role === 'user' ? `wa-in:wamid.${conversationId}.${n}` : `agent:${conversationId}:${n}`;
    const when = new Date(t);
    messages.push({
      _id: messageIdFor(ws.tenantId, dedupeKey, when),
      tenant_id: ws.tenantId,
      conversation_id: conversationId,
      role,
      text: trail ? 'looked up: order status' : random.pick(LINES[role]),
      kind: trail ? 'trail' : 'turn',
      created_at: when,
      dedupe_key: dedupeKey,
    });
    t += 5_000 + random.int(120_000);
  }
  const shown = messages.filter((m) => m.kind === 'turn');
  const last = shown[shown.length - 1] ?? null;
  return {
    conversation: {
      _id: conversationId,
      tenant_id: ws.tenantId,
      channel: 'whatsapp',
      thread_key: threadKey,
      agent_id: ws.agentId,
      status: 'open',
      customer: { name: p.name, display_name: p.name.split(' ')[0]!, phone: p.phone, contact_id: contactIdOf(ws.tenantId, i) },
      message_count: shown.length,
      preview: previewOf(last?.text ?? null),
      last_turn_at: last?.created_at ?? null,
      acquisition: null,
      recent_message_ids: messages.slice(-100).map((m) => m._id),
      started_event: true,
      created_at: at,
      updated_at: messages[messages.length - 1]?.created_at ?? at,
    },
    messages,
  };
}

/** A finished WhatsApp campaign as its run leaves it (counters derived from its recipients' states). */
export function campaignDoc(ws: WorkspaceRefs, at: Date, index: number, recipients: number, random: SeededRandom): CampaignDoc {
  const sent = recipients - Math.floor(recipients * 0.03);
  const delivered = Math.floor(sent * 0.95);
  const read = Math.floor(delivered * 0.6);
  return {
    _id: seededId('cmp', at, random),
    tenant_id: ws.tenantId,
    name: `Festive offer ${index + 1}`,
    channel: 'whatsapp',
    type: 'whatsapp_broadcast',
    status: 'completed',
    version: 3,
    audience: { kind: 'segment', tags: ['customer'], contact_id_count: 0 },
    template: { name: 'order_update', language: 'en', variables: ['{{contact.name}}'] },
    sender_id: ws.senderId,
    agent_id: null,
    purpose: null,
    script: null,
    capture: null,
    call_back_incomplete: false,
    schedule: { start_at: null, timezone: 'Asia/Kolkata', throttle_per_minute: 600, send_window_start_hour: 9, send_window_end_hour: 21, recipient_time_zone: false, requested_start_hour: 9, requested_end_hour: 21 },
    consent: { basis: 'existing_customer', note: null, pin: null },
    metadata: {},
    recipients,
    counters: { sent, delivered, read, failed: recipients - sent - Math.floor(recipients * 0.01), skipped: Math.floor(recipients * 0.01) },
    excluded: {},
    created_by: { kind: 'console', id: 'console' },
    created_at: at,
    updated_at: new Date(at.getTime() + 3_600_000),
    launched_at: new Date(at.getTime() + 60_000),
    completed_at: new Date(at.getTime() + 3_600_000),
  };
}

export function recipientDoc(ws: WorkspaceRefs, campaign: CampaignDoc, position: number, random: SeededRandom): CampaignRecipientDoc {
  const p = person(ws.tenantId, position);
  const roll = random.next();
  const state = roll < 0.57 ? 'read' : roll < 0.95 ? 'delivered' : roll < 0.97 ? 'sent' : roll < 0.99 ? 'failed' : 'skipped';
  const at = new Date(campaign.launched_at!.getTime() + position * 20);
  return {
    _id: recipientId(campaign._id, position),
    tenant_id: ws.tenantId,
    campaign_id: campaign._id,
    position,
    contact_id: contactIdOf(ws.tenantId, position),
    to: p.phone,
    name: p.name,
    variables: [p.name],
    state,
    skip_reason: state === 'skipped' ? 'opted_out' : null,
    message_id: state === 'skipped' ? null : seededId('msg', at, random),
    state_at: at,
    created_at: campaign.launched_at!,
  };
}

export function subscriberDoc(ws: WorkspaceRefs, i: number, at: Date, random: SeededRandom): SubscriberDoc {
  const p = person(ws.tenantId, i);
  const amount = (5 + random.int(60)) * 100;
  return {
    _id: seededId('sub', at, random),
    tenant_id: ws.tenantId,
    contact_id: contactIdOf(ws.tenantId, i),
    contact_pending: false,
    name: p.name,
    phone: p.phone,
    email: null,
    plan_name: random.pick(['Gym monthly', 'Tuition', 'Society maintenance']),
    amount,
    currency: 'INR',
    cycle_unit: 'monthly',
    cycle_days: null,
    due_day: 1 + random.int(28),
    start_date: at.toISOString().slice(0, 10),
    status: random.next() < 0.9 ? 'active' : 'paused',
    notes: null,
    tags: [],
    next_due_date: null,
    last_paid_at: null,
    collected_total: amount * random.int(10),
    outstanding_total: random.next() < 0.2 ? amount : 0,
    dues_paid: random.int(10),
    dues_declined: 0,
    version: 1,
    created_at: at,
    updated_at: at,
  };
}

/**
 * A subscriber's latest dues as the chase leaves them at `now`: the cycle before the current one
 * settled (paid, sometimes declined), the current one open (reminded once due, else scheduled)
 * and the next one scheduled (raised two ahead, as a create and each cycle raise them).
 */
export function duesOfSubscriber(subscriber: SubscriberDoc, now: Date, random: SeededRandom): DueDoc[] {
  const today = now.toISOString().slice(0, 10);
  let current = 0;
  while (dueDateOf(subscriber, current + 1) <= today) current++;
  const dues: DueDoc[] = [];
  for (let n = Math.max(0, current - 1); n <= current + 1; n++) {
    const dueDate = dueDateOf(subscriber, n);
    const status: DueStatus = n < current ? (random.next() < 0.9 ? 'paid' : 'declined') : dueDate < today ? 'reminded' : 'scheduled';
    const at = new Date(Math.min(now.getTime(), Date.parse(`${dueDate}T00:00:00Z`)));
    const paid = status === 'paid';
    dues.push({
      _id: dueIdFor(subscriber._id, n),
      tenant_id: subscriber.tenant_id,
      subscriber_id: subscriber._id,
      subscriber_name: subscriber.name,
      phone: subscriber.phone,
      contact_id: subscriber.contact_id,
      cycle_index: n,
      period_label: periodLabel(subscriber.cycle_unit, dueDate),
      amount: subscriber.amount,
      currency: 'INR',
      due_date: dueDate,
      status,
      collection_mode: 'manual_upi',
      payment_link: null,
      payment_link_id: null,
      payment_reference: paid ? `UPI${random.int(1_000_000)}` : null,
      paid_at: paid ? at : null,
      paid_amount: paid ? subscriber.amount : null,
      paid_source: paid ? 'manual' : null,
      marked_by: paid ? 'console' : null,
      marked_by_name: paid ? 'Front desk' : null,
      reminders_sent: status === 'scheduled' ? 0 : 1,
      last_reminder_at: status === 'scheduled' ? null : at,
      next_action_at: status === 'scheduled' || status === 'reminded' ? at : null,
      campaign_id: null,
      failure_reason: null,
      version: status === 'scheduled' ? 1 : 2,
      created_at: at,
      updated_at: at,
    });
  }
  return dues;
}

export function deliveryDoc(ws: WorkspaceRefs, endpointId: string, endpointUrl: string, at: Date, random: SeededRandom): WebhookDeliveryDoc {
  const eventId = seededId('evt', at, random);
  const ok = random.next() < 0.97;
  return {
    _id: deliveryWorkflowId(eventId, endpointId),
    tenant_id: ws.tenantId,
    endpoint_id: endpointId,
    event_id: eventId,
    event_type: random.pick(['call.completed', 'message.delivered', 'message.read', 'conversation.started', 'campaign.completed']),
    trigger: 'event',
    status: ok ? 'succeeded' : 'failed',
    attempts: [{ attempt: 1, attempted_at: at, url: endpointUrl, status_code: ok ? 204 : 500, duration_ms: 20 + random.int(200), error: ok ? null : 'HTTP 500', response_body: ok ? null : 'internal error' }],
    attempt_count: 1,
    last_status_code: ok ? 204 : 500,
    last_error: ok ? null : 'HTTP 500',
    next_attempt_at: null,
    cancel_reason: null,
    created_at: at,
    completed_at: new Date(at.getTime() + 100),
  };
}

export function ticketDoc(ws: WorkspaceRefs, i: number, at: Date, random: SeededRandom): TicketDoc {
  const p = person(ws.tenantId, i);
  const ticketId = `tkt_${createHash('sha256').update(`${ws.tenantId}\u0000ticket\u0000${i}`).digest('hex').slice(0, 24)}`;
  const status = random.pick(['new', 'open', 'pending', 'resolved', 'closed'] as const);
  const actor = { kind: 'agent' as const, agent_id: ws.agentId };
  return {
    _id: ticketId,
    tenant_id: ws.tenantId,
    public_ref: `T-${String(i + 1).padStart(6, '0')}`,
    subject: random.pick(['Parcel not delivered', 'Refund request', 'Wrong item', 'Change address', 'Payment failed']),
    status,
    priority: random.pick(['low', 'normal', 'high'] as const),
    category: null,
    tags: ['agent'],
    requester: { name: p.name, email: null, phone: p.phone, external_id: null },
    source: { channel: 'whatsapp', thread_id: null, message_id: null },
    assignee_id: null,
    assignee_name: null,
    version: 1,
    message_count: 1,
    sla_due_at: new Date(at.getTime() + 86_400_000),
    created_at: at,
    updated_at: at,
    contact_id: contactIdOf(ws.tenantId, i),
    triage: null,
    escalation: { open: false, reason: null, opened_at: null, cleared_at: null },
    status_changed_at: at,
    resolved_at: status === 'resolved' || status === 'closed' ? at : null,
    closed_at: status === 'closed' ? at : null,
    created_by: actor,
    last_changed_by: actor,
  };
}

/** The keyed list entries the app writes with a call (src/calls/callEntries.ts). */
export function listEntriesOfCall(call: CallDoc): EntryDoc[] {
  return [callNumberKey(call), ...callEndKeys(call), ...callFilterKeys(call)].map((_id) => ({ _id }));
}

/** The keyed list entries the app writes with a conversation and its turns (src/conversations/conversationEntries.ts). */
export function listEntriesOfConversation(conversation: ConversationDoc, messages: readonly ConversationMessageDoc[]): EntryDoc[] {
  return [recentEntry(conversation), ...nameKeys(conversation).map((_id) => ({ _id })), ...messages.map((m) => ({ _id: transcriptKey(m) }))];
}

/** The keyed list entries the app writes with a campaign (src/campaigns/campaignEntries.ts). */
export function listEntriesOfCampaign(campaign: CampaignDoc): EntryDoc[] {
  return campaignKeys(campaign).map((_id) => ({ _id }));
}
