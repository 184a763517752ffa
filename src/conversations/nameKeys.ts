import { entryKey, entryKeyIn } from '../db/keyedEntries';
import type { ConversationDoc, Customer } from './store';

/**
 * The customer search's keys (src/conversations/nameEntries.ts says how they are read): pure, so
 * the recent entries' writer adds them too. By name, a key per suffix; by number, one key,
 * `<tenant>|phone:<E.164>|<conversation id>`.
 */

/** How much of a suffix the key keeps: longer searches are rare, and each key's length is stored once per suffix. */
export const NAME_KEY_CHARS = 16;

/**
 * Where suffixes start: within a name's first NAME_INDEXED_CHARS characters. A name is free
 * text and its keys are re-offered with every turn's first insert, so its length must not
 * decide a turn's cost; a text found only past this in a longer name is not found.
 */
export const NAME_INDEXED_CHARS = 100;

export const nameList = (tenantId: string): string => entryKey(tenantId, 'name');

export function hexOf(text: string): string {
  let hex = '';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0');
  return hex;
}

/** A text as the keys hold it: lower case, the first NAME_KEY_CHARS characters. */
export const keyText = (text: string): string => Array.from(text.toLowerCase()).slice(0, NAME_KEY_CHARS).join('');

/** The names a conversation is searched by, without one held whole in another (its suffixes are prefixes of the other's). */
function searchedNames(customer: Customer | undefined): string[] {
  const names = [...new Set([customer?.name, customer?.display_name].filter((n): n is string => !!n).map((n) => n.toLowerCase()))];
  return names.filter((n) => !names.some((other) => other !== n && other.includes(n)));
}

/** A number as a search reads it (`searchedNumber`: `+` and digits); a stored phone of another shape is never searched for. */
const SEARCHED_PHONE = /^\+\d{1,20}$/;

export const phoneList = (tenantId: string, e164: string): string => entryKey(tenantId, `phone:${e164}`);

export function nameKeys(c: Pick<ConversationDoc, '_id' | 'tenant_id'> & { customer?: Customer }): string[] {
  const keys = new Set<string>();
  const phone = c.customer?.phone;
  if (phone && SEARCHED_PHONE.test(phone)) keys.add(entryKeyIn(phoneList(c.tenant_id, phone), c._id));
  for (const name of searchedNames(c.customer)) {
    const chars = Array.from(name);
    for (let i = 0; i < Math.min(chars.length, NAME_INDEXED_CHARS); i++) {
      if (/\s/.test(chars[i]!)) continue;
      keys.add(entryKeyIn(nameList(c.tenant_id), hexOf(keyText(chars.slice(i).join(''))), c._id));
    }
  }
  return [...keys];
}

