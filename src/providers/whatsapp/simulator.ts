import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import type { EventPublisher } from '../../events/publisher';
import type { SendAttempt, SendRequest, WhatsAppProvider } from './provider';
import { SimulatedStatusScheduler } from './simulatedStatuses';
import { DEFAULT_SCRIPT, deliverySteps, scriptFor, simulatorScriptsCollection } from './simulatorScripts';

/** What the simulator answers for a scripted temporary failure, as the Cloud API would. */
const TEMPORARY = {
  rate_limit: { provider_code: 130429, provider_subcode: null, provider_message: '(#130429) Rate limit hit', provider_user_message: null },
  server: { provider_code: 131000, provider_subcode: null, provider_message: '(#131000) Something went wrong', provider_user_message: null },
} as const;

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

  constructor(
    private readonly db: Db,
    events: EventPublisher,
    onError?: (err: unknown, messageId: string) => void,
  ) {
    this.statuses = new SimulatedStatusScheduler({ db, events }, onError);
  }

  async send(request: SendRequest): Promise<SendAttempt> {
    const script = await scriptFor(this.db, request.tenantId, request.to);
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
    return { ok: true, messageId: `wamid.SIM${randomBytes(12).toString('hex').toUpperCase()}` };
  }

  /** Schedules the accepted message's delivery statuses (once per message id), each after its pause. */
  async accepted(request: SendRequest, messageId: string): Promise<void> {
    const script = (await scriptFor(this.db, request.tenantId, request.to)) ?? DEFAULT_SCRIPT;
    await this.statuses.schedule({
      tenantId: request.tenantId,
      messageId,
      acceptedAt: new Date(),
      steps: deliverySteps(script),
      failure: script.outcome === 'failed' ? script.failure : null,
    });
  }
}
