import { collections } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { duesCollections, phoneClaimId, type SubscriberSetupDoc } from './store';
import { finishSetup, type CreateSubscriberDeps } from './subscribers';
import { periodicPass } from '../worker/periodicPass';

/**
 * Finishes subscriber setups whose create stopped short and was never asked again (the
 * client gave up, or the process died): the subscriber, its first two dues with their events
 * and chases, and its cycle appear anyway. Reads the setup records (src/dues/store.ts) from
 * their oldest end with no filter, the one read FerretDB limits in SQL (src/db/oldestFirst.ts);
 * that collection holds only creates in flight or abandoned, never every subscriber. Runs in
 * each worker process; sweeps at once, or a sweep racing a late retry, are harmless because
 * every step of a setup finds what an earlier attempt did.
 */

/** A setup younger than this is left to its create, which is probably still running. */
export const SETUP_SWEEP_GRACE_MS = 60_000;
export const SETUP_SWEEP_INTERVAL_MS = 30_000;

export interface SetupSweeperOptions {
  deps: CreateSubscriberDeps;
  graceMs?: number;
  intervalMs?: number;
  /** At most this many setups a pass; the next pass takes the rest. */
  batchSize?: number;
  now?: () => Date;
  onError?: (err: unknown, subscriberId: string | null) => void;
}

export interface SetupSweeper {
  /** One pass; how many setups it finished. */
  sweepOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export function createSetupSweeper({
  deps,
  graceMs = SETUP_SWEEP_GRACE_MS,
  intervalMs = SETUP_SWEEP_INTERVAL_MS,
  batchSize = 100,
  now = () => new Date(),
  onError = () => undefined,
}: SetupSweeperOptions): SetupSweeper {
  async function sweepOnce(): Promise<number> {
    const cutoff = now().getTime() - graceMs;
    const setups = await duesCollections(deps.db).setups.find({}, { limit: batchSize }).toArray();
    let finished = 0;
    for (const setup of setups) {
      if (setup.created_at.getTime() >= cutoff) continue;
      try {
        if (await finishAbandoned(deps, setup, now())) finished++;
      } catch (err) {
        // Left for the next pass (Temporal or the database may be back by then).
        onError(err, setup._id);
      }
    }
    return finished;
  }

  return { sweepOnce, ...periodicPass(sweepOnce, intervalMs, (err) => onError(err, null)) };
}

/** True when it finished the setup; false when the setup had lost its phone (or its workspace) and was dropped. */
async function finishAbandoned(deps: CreateSubscriberDeps, setup: SubscriberSetupDoc, now: Date): Promise<boolean> {
  const { phones, setups } = duesCollections(deps.db);
  const workspace = await collections(deps.db).workspaces.findOne({ _id: setup.tenant_id });
  if (!workspace) {
    await setups.deleteOne({ _id: setup._id });
    return false;
  }
  const claimId = phoneClaimId(setup.tenant_id, setup.input.phone);
  let holder = await phones.findOne({ _id: claimId });
  if (!holder) {
    // A create that stopped between its setup and its claim: claimed here, as it would have been.
    await insertIfAbsent(phones, { _id: claimId, tenant_id: setup.tenant_id, subscriber_id: setup._id, request: setup.request, created_at: setup.created_at });
    holder = await phones.findOne({ _id: claimId });
  }
  if (holder?.subscriber_id !== setup._id) {
    // Another create holds the phone (this one answered, or would answer, 409 duplicate_recipient).
    await setups.deleteOne({ _id: setup._id });
    return false;
  }
  await finishSetup(deps, workspace, setup, now, 'again');
  return true;
}
