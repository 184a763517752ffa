/** The code MongoDB (and FerretDB) give a write refused by a unique index: the claims' one winner. */
export const DUPLICATE_KEY = 11000;

/** A single write's error says a document with its unique key exists already. */
export const isDuplicateKey = (err: unknown): boolean => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === DUPLICATE_KEY;

/** Every document a bulk write refused was refused as a duplicate (so nothing else went wrong). */
export function onlyDuplicateKeys(codes: Iterable<number | undefined>): boolean {
  for (const code of codes) if (code !== DUPLICATE_KEY) return false;
  return true;
}
