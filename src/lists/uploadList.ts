import type { Db } from 'mongodb';
import { storeList, type UploadedListDoc } from './listStore';
import { parseList, type ListRefusal } from './parseList';

/**
 * An operator's upload (console only, docs/campaigns.md "Uploaded lists"): the file parsed
 * by the list rules, then stored whole, or why it was refused.
 */
export async function uploadList(
  db: Db,
  input: { tenantId: string; name: string; fileName: string | null; phoneColumn: string | null; text: string; bytes: number; now: Date },
): Promise<{ ok: true; list: UploadedListDoc } | { ok: false; refusal: ListRefusal }> {
  const parsed = parseList(input.text, { phoneColumn: input.phoneColumn });
  if (!parsed.ok) return parsed;
  const list = await storeList(db, { tenantId: input.tenantId, name: input.name, fileName: input.fileName, bytes: input.bytes, parsed: parsed.list, now: input.now });
  return { ok: true, list };
}
