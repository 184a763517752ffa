import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import type { EventPublisher } from '../../events';
import type { ReadMark, SendAttempt, SendRequest, WhatsAppProvider } from '../../messaging';
import { SimulatedStatusScheduler, type PendingStatusesDoc } from './simulatedStatuses';
import { DEFAULT_SCRIPT, deliverySteps, scriptFor, scriptId, scriptsFor, simulatorScriptsCollection, type SimulatorScript, type SimulatorScriptDoc } from './simulatorScripts';
import { upsertOne } from '../../db/upsert';

/** A customer message the simulator was told to mark read (the Cloud API's `status: read`). */
export interface SimulatedReadMarkDoc {
  /** The provider's id of the customer's message. */
  _id: string;
  tenant_id: string;
  sender_id: string;
  typing: boolean;
  marked_at: Date;
}

export const simulatedReadMarksCollection = (db: Db) => db.collection<SimulatedReadMarkDoc>('simulated_read_marks');

/** What the simulator answers for a scripted temporary failure, as the Cloud API would. */
const TEMPORARY = {
  rate_limit: { provider_code: 130429, provider_subcode: null, provider_message: '(#130429) Rate limit hit', provider_user_message: null },
  server: { provider_code: 131000, provider_subcode: null, provider_message: '(#131000) Something went wrong', provider_user_message: null },
} as const;

/**
 * Pauses between attempts to store an accepted message's statuses: about 13 s in all, under a
 * campaign batch's 20 s heartbeat timeout, past the 2 s a killed FerretDB took to come back.
 */
const STORE_PAUSES_MS = [250, 500, 1_000, 2_000, 3_000, 3_000, 3_000];

/**
 * The real platform's acceptance does not depend on our database; the simulator's record of it
 * does. So a store failing while the database restarts is tried again (a repeat finds a stored
 * document and keeps it), rather than failing the send at a moment when its sender cannot remove
 * its intent either, which left the send `outcome_unknown` with nothing sent (the kill test's
 * FerretDB kill, run 7). Still failing after the pauses, the send fails (nothing accepted).
 */
async function rideOutStoreOutage<T>(store: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await store();
    } catch (err) {
      const pause = STORE_PAUSES_MS[attempt];
      if (pause === undefined) throw err;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** What an accepted message will report, as its script said when it was sent. */
interface Planned {
  steps: ReturnType<typeof deliverySteps>;
  failure: SimulatorScript['failure'] | null;
}

/**
 * How many accepted sends' plans are kept until `accepted` takes them. A send whose recording
 * fails before `accepted` leaves its plan behind; the oldest go first, and `accepted` reads
 * the script again for a plan it no longer holds.
 */
const PLANS_KEPT = 10_000;
/** How long a script read ahead for a batch (`prepare`) may serve its send: a batch's span, with room. */
const PREPARED_MS = 30_000;

const planOf = (script: SimulatorScript): Planned => ({
  steps: deliverySteps(script),
  failure: script.outcome === 'failed' ? script.failure : null,
});

/**
 * The default WhatsApp provider: nothing leaves the machine. Each recipient behaves as its
 * console script says (refusals, temporary failures, the statuses an accepted message goes
 * through and their pauses); statuses arrive later, as the real provider's status webhooks
 * would, from the status scheduler (simulatedStatuses.ts: no workflow per message).
 */
export class SimulatedWhatsAppProvider implements WhatsAppProvider {
  readonly name = 'simulator' as const;
  /** Reports accepted messages' statuses; the worker also runs its sweep. */
  readonly statuses: SimulatedStatusScheduler;
  /**
   * The statuses of messages accepted here, by message id, from the script `send` read, so
   * the script is read once per message rather than again in `accepted`.
   */
  private readonly plans = new Map<string, PendingStatusesDoc | null>();
  /**
   * Scripts read ahead for a campaign batch's recipients (`prepare`), by script id: each
   * serves its recipient's next send once, within PREPARED_MS (a batch lasts seconds), so
   * a script changed in the console after its batch began applies from the next batch.
   */
  private readonly prepared = new Map<string, { script: SimulatorScriptDoc | null; at: number }>();

  constructor(
    private readonly db: Db,
    events: EventPublisher,
    onError?: (err: unknown, messageId: string) => void,
  ) {
    this.statuses = new SimulatedStatusScheduler({ db, events }, onError);
  }

  async prepare(tenantId: string, recipients: readonly string[]): Promise<void> {
    const found = new Map((await scriptsFor(this.db, tenantId, recipients)).map((doc) => [doc._id, doc]));
    const at = performance.now();
    for (const [id, entry] of this.prepared) if (at - entry.at > PREPARED_MS) this.prepared.delete(id);
    for (const recipient of recipients) {
      const id = scriptId(tenantId, recipient);
      this.prepared.set(id, { script: found.get(id) ?? null, at });
    }
    while (this.prepared.size > PLANS_KEPT) this.prepared.delete(this.prepared.keys().next().value!);
  }

  /** The recipient's script: read ahead by `prepare` (once), or read now. */
  private async scriptOf(request: SendRequest): Promise<SimulatorScriptDoc | null> {
    const id = scriptId(request.tenantId, request.to);
    const ahead = this.prepared.get(id);
    this.prepared.delete(id);
    if (ahead && performance.now() - ahead.at <= PREPARED_MS) return ahead.script;
    return scriptFor(this.db, request.tenantId, request.to);
  }

  async send(request: SendRequest): Promise<SendAttempt> {
    const script = await this.scriptOf(request);
    if (script && script.fail_next > 0) {
      // Consumed one per attempt. Not atomic across parallel sends on FerretDB, which is
      // fine for a test double driven one request at a time.
      await simulatorScriptsCollection(this.db).updateOne({ _id: script._id }, { $set: { fail_next: script.fail_next - 1 } });
      return { ok: false, retryable: true, error: { ...TEMPORARY[script.fail_kind] } };
    }
    if (script?.refuse) {
      return {
        ok: false,
        retryable: false,
        error: {
          provider_code: script.refuse.code,
          provider_subcode: script.refuse.subcode,
          provider_message: script.refuse.message,
          provider_user_message: script.refuse.user_message,
        },
      };
    }
    const messageId = `wamid.SIM${randomBytes(12).toString('hex').toUpperCase()}`;
    // Stored before the answer, as the real platform's acceptance is: a sender that dies before
    // recording it still sees its statuses (with its callback data) come, from a sweep.
    const input = { tenantId: request.tenantId, messageId, acceptedAt: new Date(), ...planOf(script ?? DEFAULT_SCRIPT), ...(request.callbackData ? { callbackData: request.callbackData } : {}) };
    const stored = await rideOutStoreOutage(() => this.statuses.store(input));
    this.plans.set(messageId, stored);
    if (this.plans.size > PLANS_KEPT) this.plans.delete(this.plans.keys().next().value!);
    return { ok: true, messageId };
  }

  /**
   * Records the read mark (and typing) as the Cloud API would receive it, so the console and
   * tests can see that the agent marked the customer's message read: one document per message.
   */
  async markRead(mark: ReadMark): Promise<void> {
    await upsertOne(simulatedReadMarksCollection(this.db), { _id: mark.providerMessageId }, { $set: { tenant_id: mark.tenantId, sender_id: mark.senderId, typing: mark.typing, marked_at: new Date() } });
  }

  /** Schedules the accepted message's delivery statuses (once per message id), each after its pause. */
  async accepted(request: SendRequest, messageId: string): Promise<void> {
    const stored = this.plans.get(messageId);
    this.plans.delete(messageId);
    if (stored !== undefined) {
      if (stored) this.statuses.start(stored);
      return;
    }
    // Another process's send (a retry finishing its records) has no plan here: stored by that
    // send, the statuses are left to the sweep (the insert below is refused); a message sent
    // before statuses were stored at the send has none, and is scheduled now.
    const plan = planOf((await scriptFor(this.db, request.tenantId, request.to)) ?? DEFAULT_SCRIPT);
    await this.statuses.schedule({ tenantId: request.tenantId, messageId, acceptedAt: new Date(), ...plan });
  }
}
