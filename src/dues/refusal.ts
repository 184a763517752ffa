import { Refusal } from '../domain/refusal';

/**
 * Why a due or subscriber action was refused (campaigns-tickets-dues §3, §4): the version
 * named is stale (`version_conflict`), or the due or subscriber is in a state the action does
 * not apply to (the contract's `conflict`, with `current_status`). `api/refusals.ts` gives
 * each its code, for the public and the console routes alike.
 */
export type DueRefusalReason = 'version_conflict' | 'conflict';

export class DueRefusal extends Refusal<DueRefusalReason> {
  override readonly name = 'DueRefusal';
}

/** A payment whose version moved on since it was read. */
export const paymentChanged = (currentVersion: number): DueRefusal =>
  new DueRefusal('version_conflict', 'This payment changed since it was read; read it again and send its current version.', { current_version: currentVersion });

/** A due or subscriber in a state the action does not apply to. */
export const wrongStatus = (message: string, currentStatus: string): DueRefusal => new DueRefusal('conflict', message, { current_status: currentStatus });
