import type { Db } from 'mongodb';
import { collections } from '../db/collections';
import type { EventPublisher } from '../events';
import { dueReceiptSendIntentKey, dueReminderSendIntentKey, SendOutcomeUnknown, SendRefusal, sendWhatsAppMessage } from '../messaging';
import type { PaymentLinkProvider, PaymentLinkResult } from './paymentGateway';
import type { TemplateRequest, WhatsAppProvider } from '../messaging';
import { isWindowOpen, nextOpenTime } from '../domain/sendWindow';
import { chaseTimes, MESSAGE_WINDOW } from './chasePlan';
import type { ChasePlan, ChaseStep, ChaseStepInput, ChaseStepResult } from './contracts';
import { parseDate } from './cycle';
import { changeDueLatest } from './dueVersions';
import { formatRupees, toPaise } from './money';
import { readDuesSettings, type DueVariable, type DuesSettings } from './settings';
import { duesCollections, findDue, isOpen, type DueDoc, type DueStatus } from './store';
import { recountSubscriber } from './totals';

/**
 * The chase's side effects (activities/dues.ts wraps them): its plan, each step (a WhatsApp
 * template through the send use case, or the decline) and the receipt. Every step reads the
 * due first and does nothing to a due that is no longer open; every message has its own send
 * intent (due and step), so a retried step never sends twice.
 */

export interface ChaseDeps {
  db: Db;
  events: EventPublisher;
  whatsapp: WhatsAppProvider;
  payments: PaymentLinkProvider;
  deploymentChannels: readonly string[];
  now: () => Date;
}

const STEP_STATUS: Record<Exclude<ChaseStep, 'decline'>, DueStatus> = { reminder: 'reminded', followup_1: 'followup_1', followup_2: 'followup_2' };
const STEP_NUMBER: Record<Exclude<ChaseStep, 'decline'>, number> = { reminder: 0, followup_1: 1, followup_2: 2 };

const zoneOf = async (db: Db, tenantId: string) => (await collections(db).workspaces.findOne({ _id: tenantId }))?.timezone ?? 'UTC';

/** The chase's step times from `nowMs` (workflow time, so a retry plans the same). */
export async function planChase(deps: ChaseDeps, tenantId: string, dueId: string, nowMs: number): Promise<ChasePlan> {
  const due = await findDue(deps.db, tenantId, dueId);
  if (!due || !isOpen(due.status)) return { open: false, stepsAtMs: { reminder: 0, followup_1: 0, followup_2: 0, decline: 0 } };
  const settings = await readDuesSettings(deps.db, tenantId);
  return { open: true, stepsAtMs: chaseTimes(due.due_date, settings, await zoneOf(deps.db, tenantId), nowMs) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function variableValue(variable: DueVariable, due: DueDoc, settings: DuesSettings, planName: string): string {
  switch (variable) {
    case 'name':
      return due.subscriber_name;
    case 'amount':
      return formatRupees(due.amount);
    case 'due_date': {
      const d = parseDate(due.due_date);
      return `${d.day} ${MONTHS[d.month - 1]} ${d.year}`;
    }
    case 'period':
      return due.period_label;
    case 'plan_name':
      return planName;
    case 'due_id':
      return due._id;
    case 'pay_to':
      return due.payment_link ?? settings.collection.upi_id ?? settings.collection.qr_url ?? '-';
  }
}

/** The dues app's template for a due, its variables filled from the due (a reminder's, a receipt's, or the agent's payment link outside the 24-hour window). */
export async function dueTemplateRequest(db: Db, due: DueDoc, template: DuesSettings['template'], settings: DuesSettings): Promise<TemplateRequest> {
  const subscriber = await duesCollections(db).subscribers.findOne({ _id: due.subscriber_id });
  const value = (v: DueVariable) => variableValue(v, due, settings, subscriber?.plan_name ?? '');
  return {
    name: template.name,
    language: template.language,
    variables: template.variables.map(value),
    ...(template.button_variables.length ? { button_variables: template.button_variables.map(value) } : {}),
  };
}

async function sendTemplate(deps: ChaseDeps, due: DueDoc, template: DuesSettings['template'], settings: DuesSettings, intentKey: string): Promise<void> {
  await sendWhatsAppMessage(
    { db: deps.db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now: deps.now },
    { tenantId: due.tenant_id, to: due.phone, template: await dueTemplateRequest(deps.db, due, template, settings), metadata: { due_id: due._id }, intentKey },
  );
}

/** Why a message did not go, as `failure_reason`; rethrows what a retry may fix. */
function failureOf(err: unknown): string {
  if (err instanceof SendRefusal) return err.reason;
  if (err instanceof SendOutcomeUnknown) return 'outcome_unknown';
  // SendInProgress (a dead attempt's lease not yet run out) and anything else: the activity is retried.
  throw err;
}

export async function runChaseStep(deps: ChaseDeps, input: ChaseStepInput): Promise<ChaseStepResult> {
  const due = await findDue(deps.db, input.tenantId, input.dueId);
  if (!due || !isOpen(due.status)) return { kind: 'stopped' };
  const at = new Date(input.at);
  const nextActionAt = input.nextActionAt ? new Date(input.nextActionAt) : null;

  if (input.step === 'decline') {
    const declined = await changeDueLatest(deps.db, due._id, (d) => (isOpen(d.status) ? { status: 'declined', next_action_at: null } : null), deps.now);
    if (!declined) return { kind: 'stopped' };
    await recountSubscriber(deps.db, due.subscriber_id, deps.now());
    await deps.events.publish({
      tenantId: due.tenant_id,
      type: 'payment.declined',
      dedupeKey: `payment.declined:${due._id}`,
      createdAt: at,
      data: { due_id: due._id, subscriber_id: due.subscriber_id, amount: due.amount, period: due.period_label },
    });
    return { kind: 'done', sent: false };
  }

  const timeZone = await zoneOf(deps.db, due.tenant_id);
  if (!isWindowOpen(at, MESSAGE_WINDOW, timeZone)) return { kind: 'closed', opensAtMs: nextOpenTime(at, MESSAGE_WINDOW, timeZone).getTime() };
  const settings = await readDuesSettings(deps.db, due.tenant_id);
  const number = STEP_NUMBER[input.step];
  let failure: string | null = null;
  let linked: DueDoc = due;
  if (due.collection_mode === 'payment_link' && !due.payment_link) {
    const made = await createLink(deps, due);
    if (!made) return { kind: 'stopped' };
    ({ due: linked, failure } = made);
  }
  try {
    await sendTemplate(deps, linked, settings.template, settings, dueReminderSendIntentKey(due.tenant_id, due._id, number));
  } catch (err) {
    failure = failureOf(err);
  }
  const status = STEP_STATUS[input.step];
  const written = await changeDueLatest(
    deps.db,
    due._id,
    (d) => {
      if (!isOpen(d.status)) return null;
      const moved = failure === null ? { status, reminders_sent: Math.max(d.reminders_sent, number + 1), last_reminder_at: at } : {};
      return { ...moved, failure_reason: failure, next_action_at: nextActionAt };
    },
    deps.now,
  );
  return written ? { kind: 'done', sent: failure === null } : { kind: 'stopped' };
}

/**
 * The due's payment link, created once before its first message (the provider is given the
 * due id as its reference, so a retry finds the same link). A refusal leaves it without one:
 * the message still goes, and `failure_reason` says why: `payment_link_below_minimum` for an
 * amount under the gateway's minimum (refused before asking it; PAYMENT_LINK_MIN_PAISE),
 * `payment_link_failed` for any other refusal. Null when the due stopped being open meanwhile.
 */
async function createLink(deps: ChaseDeps, due: DueDoc): Promise<{ due: DueDoc; failure: string | null } | null> {
  const made = await ensurePaymentLink(deps, due);
  if (made.kind === 'refused') return { due, failure: made.link.reason === 'below_minimum' ? 'payment_link_below_minimum' : 'payment_link_failed' };
  return made.kind === 'linked' ? { due: made.due, failure: null } : null;
}

export type EnsuredLink =
  | { kind: 'linked'; due: DueDoc }
  | { kind: 'refused'; link: Extract<PaymentLinkResult, { ok: false }> }
  /** The due stopped being open meanwhile. */
  | { kind: 'closed' };

/**
 * The open due's payment link: the one it has, or one asked of the gateway (given the due id
 * as its reference, so asking again finds the same link) and written to the due. Shared by
 * the chase and the agents' `send_payment_link`.
 */
export async function ensurePaymentLink(deps: Pick<ChaseDeps, 'db' | 'payments' | 'now'>, due: DueDoc): Promise<EnsuredLink> {
  if (!isOpen(due.status)) return { kind: 'closed' };
  if (due.payment_link) return { kind: 'linked', due };
  const subscriber = await duesCollections(deps.db).subscribers.findOne({ _id: due.subscriber_id });
  const link = await deps.payments.createLink({
    tenantId: due.tenant_id,
    dueId: due._id,
    amountPaise: toPaise(due.amount),
    description: `${subscriber?.plan_name ?? 'Payment'}, ${due.period_label}`,
    customer: { name: due.subscriber_name, phone: due.phone, email: subscriber?.email ?? null },
  });
  if (!link.ok) return { kind: 'refused', link };
  const linked = await changeDueLatest(deps.db, due._id, (d) => (isOpen(d.status) ? { payment_link: link.url, payment_link_id: link.id } : null), deps.now);
  return linked ? { kind: 'linked', due: linked } : { kind: 'closed' };
}

/**
 * After the chase stops: a due paid other than through its link has the live link cancelled
 * (best effort: a failure is recorded, never retried for ever), and the receipt is sent when
 * the settings ask for one (a refusal is recorded as `failure_reason`).
 */
export async function finishChase(deps: ChaseDeps, tenantId: string, dueId: string): Promise<{ linkCancelled: boolean; receiptSent: boolean }> {
  const due = await findDue(deps.db, tenantId, dueId);
  if (!due) return { linkCancelled: false, receiptSent: false };
  let linkCancelled = false;
  if (due.payment_link_id && due.paid_source !== 'gateway' && !isOpen(due.status)) {
    try {
      await deps.payments.cancelLink(due.payment_link_id);
      linkCancelled = true;
    } catch {
      await changeDueLatest(deps.db, dueId, () => ({ failure_reason: 'payment_link_cancel_failed' }), deps.now);
    }
  }
  return { linkCancelled, receiptSent: await sendReceiptFor(deps, due) };
}

async function sendReceiptFor(deps: ChaseDeps, due: DueDoc): Promise<boolean> {
  const { tenant_id: tenantId, _id: dueId } = due;
  if (due.status !== 'paid') return false;
  const settings = await readDuesSettings(deps.db, tenantId);
  if (!settings.receipt.enabled) return false;
  try {
    await sendTemplate(deps, due, settings.receipt.template, settings, dueReceiptSendIntentKey(tenantId, dueId));
    return true;
  } catch (err) {
    const failure = failureOf(err);
    await changeDueLatest(deps.db, dueId, () => ({ failure_reason: `receipt_${failure}` }), deps.now);
    return false;
  }
}
