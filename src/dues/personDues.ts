import type { Db } from 'mongodb';
import { duesCollections, isOpen, phoneClaimId, type DueDoc, type SubscriberDoc } from './store';

/** How many of a person's dues an agent is shown, newest due date first: a year of monthly dues. */
export const PERSON_DUES_SHOWN = 12;

export interface PersonDues {
  subscriber: SubscriberDoc;
  /** Open dues first, then the rest, each newest due date first; at most PERSON_DUES_SHOWN. */
  dues: DueDoc[];
}

/**
 * The dues of the person on a phone number (E.164), for an agent talking to them: the
 * subscriber found by the phone's claim (one subscriber per phone, a point read), then its
 * dues. Null when the number is no subscriber of this workspace.
 */
export async function personDues(db: Db, tenantId: string, phone: string): Promise<PersonDues | null> {
  const { phones, subscribers, dues } = duesCollections(db);
  const claim = await phones.findOne({ _id: phoneClaimId(tenantId, phone) });
  if (!claim || claim.tenant_id !== tenantId) return null;
  const subscriber = await subscribers.findOne({ _id: claim.subscriber_id });
  if (!subscriber || subscriber.tenant_id !== tenantId) return null;
  const all = await dues.find({ subscriber_id: subscriber._id, tenant_id: tenantId }).sort({ due_date: -1 }).toArray();
  const ordered = [...all.filter((due) => isOpen(due.status)), ...all.filter((due) => !isOpen(due.status))];
  return { subscriber, dues: ordered.slice(0, PERSON_DUES_SHOWN) };
}
