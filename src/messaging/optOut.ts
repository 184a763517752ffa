import type { Collection, Db } from 'mongodb';
import { phoneDigits } from '../conversations';
import { findByIds } from '../db/findByIds';
import { insertIfAbsent } from '../db/insertIfAbsent';

/**
 * Opt-outs (api-core §7 `suppressed`): a customer who replies STOP is never messaged again by
 * the workspace, templates included, and campaigns skip them. Permanent: nothing lifts one.
 */

/** `STOP` alone, in any case, ignoring surrounding spaces and trailing `.` or `!`. */
export function isOptOutReply(text: string | null): boolean {
  return text !== null && /^stop[.!]*$/i.test(text.trim());
}

interface SuppressionDoc {
  /** `<tenant>|<phone digits>`, so the check is a point read. */
  _id: string;
  tenant_id: string;
  phone: string;
  reason: 'stop_reply';
  /** The inbound message that opted out. */
  source_message_id: string;
  created_at: Date;
}

function suppressions(db: Db): Collection<SuppressionDoc> {
  return db.collection<SuppressionDoc>('suppressions');
}

const suppressionId = (tenantId: string, phone: string) => `${tenantId}|${phoneDigits(phone)}`;

/** Keeps the first opt-out; a second STOP changes nothing. */
export async function recordOptOut(db: Db, input: { tenantId: string; phone: string; sourceMessageId: string; at: Date }): Promise<void> {
  const doc: SuppressionDoc = {
    _id: suppressionId(input.tenantId, input.phone),
    tenant_id: input.tenantId,
    phone: `+${phoneDigits(input.phone)}`,
    reason: 'stop_reply',
    source_message_id: input.sourceMessageId,
    created_at: input.at,
  };
  await insertIfAbsent(suppressions(db), doc);
}

export async function isSuppressed(db: Db, tenantId: string, phone: string): Promise<boolean> {
  return (await suppressions(db).findOne({ _id: suppressionId(tenantId, phone) }, { projection: { _id: 1 } })) !== null;
}

/**
 * Which of these numbers opted out (`+` and digits), in one `_id $in` read (from the `_id`
 * index): a campaign batch asks for its recipients once a second instead of once a send.
 */
export async function suppressedAmong(db: Db, tenantId: string, phones: readonly string[]): Promise<Set<string>> {
  const docs = await findByIds(suppressions(db), phones.map((phone) => suppressionId(tenantId, phone)), { projection: { phone: 1 } });
  return new Set(docs.map((doc) => doc.phone));
}

/**
 * Every opted-out number of the workspace (`+` and digits), in one read: a campaign checks
 * thousands of numbers at once, where a point read each would cost thousands of reads.
 */
export async function suppressedNumbers(db: Db, tenantId: string): Promise<Set<string>> {
  const docs = await suppressions(db).find({ tenant_id: tenantId }, { projection: { phone: 1 } }).toArray();
  return new Set(docs.map((doc) => doc.phone));
}
