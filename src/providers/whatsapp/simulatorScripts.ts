import type { Collection, Db } from 'mongodb';
import { z } from 'zod';
import { phoneDigits } from '../../conversations';
import { findByIds } from '../../db/findByIds';
import { replaceUpserting } from '../../db/upsert';

/**
 * What the WhatsApp simulator does for one recipient of one workspace, set through the
 * console. A recipient with no script gets the default: accepted, then sent, delivered and
 * read after short fixed pauses. Deterministic: the same script always gives the same
 * statuses in the same order.
 */

const delay = z.number().int().min(0).max(3_600_000);

export const simulatorScriptSchema = z
  .object({
    /** The last delivery status the message reaches. */
    outcome: z.enum(['sent', 'delivered', 'read', 'failed']).default('read'),
    /** Why a `failed` message failed (Cloud API error shape). */
    failure: z
      .object({ code: z.number().int(), title: z.string().max(200), message: z.string().max(500) })
      .default({ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' }),
    /** The provider refuses every send to this recipient with this error. */
    refuse: z
      .object({
        code: z.number().int(),
        subcode: z.number().int().nullable().default(null),
        message: z.string().min(1).max(500),
        user_message: z.string().max(500).nullable().default(null),
      })
      .nullable()
      .default(null),
    /** The next N send attempts fail with a temporary error (consumed one per attempt). */
    fail_next: z.number().int().min(0).max(20).default(0),
    fail_kind: z.enum(['rate_limit', 'server']).default('rate_limit'),
    /** Pause before each status, counted from the previous one (or from the send). */
    delays_ms: z
      .object({ sent: delay.default(100), delivered: delay.default(400), read: delay.default(1000), failed: delay.default(400) })
      .default({ sent: 100, delivered: 400, read: 1000, failed: 400 }),
  })
  .strict();

export type SimulatorScript = z.infer<typeof simulatorScriptSchema>;

export interface SimulatorScriptDoc extends SimulatorScript {
  /** `<tenant>|<recipient digits>`. */
  _id: string;
  tenant_id: string;
  recipient: string;
  updated_at: Date;
}

export const DEFAULT_SCRIPT: SimulatorScript = simulatorScriptSchema.parse({});

export function simulatorScriptsCollection(db: Db): Collection<SimulatorScriptDoc> {
  return db.collection<SimulatorScriptDoc>('whatsapp_simulator_scripts');
}

export const scriptId = (tenantId: string, recipient: string) => `${tenantId}|${phoneDigits(recipient)}`;

export async function scriptFor(db: Db, tenantId: string, recipient: string): Promise<SimulatorScriptDoc | null> {
  return simulatorScriptsCollection(db).findOne({ _id: scriptId(tenantId, recipient) });
}

/** The scripts of these recipients that have one, in one `_id $in` read. */
export async function scriptsFor(db: Db, tenantId: string, recipients: readonly string[]): Promise<SimulatorScriptDoc[]> {
  return findByIds(simulatorScriptsCollection(db), recipients.map((recipient) => scriptId(tenantId, recipient)));
}

/** Replaces the recipient's script as a whole. */
export async function setScript(db: Db, tenantId: string, recipient: string, script: SimulatorScript, now: Date): Promise<SimulatorScriptDoc> {
  const doc: SimulatorScriptDoc = { _id: scriptId(tenantId, recipient), tenant_id: tenantId, recipient: `+${phoneDigits(recipient)}`, ...script, updated_at: now };
  await replaceUpserting(simulatorScriptsCollection(db), { _id: doc._id }, doc);
  return doc;
}

export async function clearScript(db: Db, tenantId: string, recipient: string): Promise<boolean> {
  return (await simulatorScriptsCollection(db).deleteOne({ _id: scriptId(tenantId, recipient) })).deletedCount === 1;
}

/** The statuses a message accepted under this script goes through, each with its pause. */
export function deliverySteps(script: SimulatorScript): { status: 'sent' | 'delivered' | 'read' | 'failed'; afterMs: number }[] {
  const d = script.delays_ms;
  switch (script.outcome) {
    case 'sent':
      return [{ status: 'sent', afterMs: d.sent }];
    case 'delivered':
      return [
        { status: 'sent', afterMs: d.sent },
        { status: 'delivered', afterMs: d.delivered },
      ];
    case 'read':
      return [
        { status: 'sent', afterMs: d.sent },
        { status: 'delivered', afterMs: d.delivered },
        { status: 'read', afterMs: d.read },
      ];
    case 'failed':
      return [
        { status: 'sent', afterMs: d.sent },
        { status: 'failed', afterMs: d.failed },
      ];
  }
}
