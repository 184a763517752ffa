import { collections } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { changeSubscriber } from './dueActions';
import { setupInputProblem } from './inputRules';
import { duesCollections, phoneClaimId, type SetupFailure, type SubscriberSetupDoc } from './store';
import { finishSetup, type CreateSubscriberDeps } from './subscribers';
import { periodicPass } from '../async/periodicPass';

/**
 * Finishes subscriber setups whose create stopped short and was never asked again (the
 * client gave up, or the process died): the subscriber, its first two dues with their events
 * and chases, and its cycle appear anyway. Reads the setup records (src/dues/store.ts) from
 * their oldest end with no filter, the one read FerretDB limits in SQL (src/db/oldestFirst.ts);
 * that collection holds only creates in flight or abandoned, never every subscriber. Runs in
 * each worker process; sweeps at once, or a sweep racing a late retry, are harmless because
 * every step of a setup finds what an earlier attempt did.
 *
 * A setup that can never finish is given up instead of being tried every pass for ever: one
 * whose plan breaks a rule the API now enforces (a `start_date` past what the cycle math
 * carries, an amount not in whole paise: recorded by an older release), one whose step fails
 * with the cycle math's RangeError, and one still failing a day after its create. Giving up
 * records why on the subscriber (`setup_failure`) and cancels it (its cycle ended, any due
 * raised cancelled), releases the phone, and deletes the setup.
 */

/** A setup younger than this is left to its create, which is probably still running. */
export const SETUP_SWEEP_GRACE_MS = 60_000;
export const SETUP_SWEEP_INTERVAL_MS = 30_000;
/** A setup whose steps still fail this long after its create is given up (a day of Temporal down, say). */
export const SETUP_GIVE_UP_AFTER_MS = 24 * 3_600_000;

export interface SetupSweeperOptions {
  deps: CreateSubscriberDeps;
  graceMs?: number;
  intervalMs?: number;
  /** At most this many setups a pass; the next pass takes the rest. */
  batchSize?: number;
  now?: () => Date;
  onError?: (err: unknown, subscriberId: string | null) => void;
  /** A setup given up: its subscriber cancelled with `failure`, its phone released. */
  onGiveUp?: (subscriberId: string, failure: SetupFailure) => void;
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
  onGiveUp = () => undefined,
}: SetupSweeperOptions): SetupSweeper {
  async function giveUpOn(setup: SubscriberSetupDoc, reason: SetupFailure['reason'], message: string): Promise<void> {
    const failure: SetupFailure = { reason, message, at: now() };
    try {
      await giveUp(deps, setup, failure);
      onGiveUp(setup._id, failure);
    } catch (err) {
      // Giving up is itself finished by the next pass.
      onError(err, setup._id);
    }
  }

  async function sweepOnce(): Promise<number> {
    const cutoff = now().getTime() - graceMs;
    const setups = await duesCollections(deps.db).setups.find({}, { limit: batchSize }).toArray();
    let finished = 0;
    for (const setup of setups) {
      if (setup.created_at.getTime() >= cutoff) continue;
      const problem = setupInputProblem(setup.input);
      if (problem) {
        await giveUpOn(setup, 'invalid_input', problem);
        continue;
      }
      try {
        if (await finishAbandoned(deps, setup, now())) finished++;
      } catch (err) {
        if (err instanceof RangeError || now().getTime() - setup.created_at.getTime() > SETUP_GIVE_UP_AFTER_MS) {
          await giveUpOn(setup, 'setup_failed', err instanceof Error ? err.message : String(err));
        } else {
          // Left for the next pass (Temporal or the database may be back by then).
          onError(err, setup._id);
        }
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

/**
 * Gives a setup up: the subscriber, if the setup got that far, records why and is cancelled
 * (so nothing of it is chased or raised); then the phone claim, if still this setup's, and
 * the setup go, so a new create for the phone succeeds. Each step may run again.
 */
async function giveUp(deps: CreateSubscriberDeps, setup: SubscriberSetupDoc, failure: SetupFailure): Promise<void> {
  const { subscribers, phones, setups } = duesCollections(deps.db);
  if (await subscribers.findOne({ _id: setup._id }, { projection: { _id: 1 } })) {
    await subscribers.updateOne({ _id: setup._id }, { $set: { setup_failure: failure, updated_at: failure.at } });
    await changeSubscriber(deps, setup.tenant_id, setup._id, 'cancel', failure.at);
  }
  await phones.deleteOne({ _id: phoneClaimId(setup.tenant_id, setup.input.phone), subscriber_id: setup._id });
  await setups.deleteOne({ _id: setup._id });
}
