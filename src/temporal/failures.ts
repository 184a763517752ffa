import { ApplicationFailure } from '@temporalio/common';

/**
 * Every failure type our workflows and activities raise (`ApplicationFailure.type`), in one
 * list: activities throw them, workflows name them in retry policies and in their own
 * failures, the API maps them. Stable names, never renamed: stored histories and running
 * workflows carry them.
 *
 * Imported by workflow code: no Node built-ins, no I/O.
 */
export const FailureType = {
  /** The reader may answer on a later attempt (a timeout, 429, 5xx, unusable output). */
  ReaderTemporary: 'ReaderTemporaryError',
  /** The reader will not answer this call (a refusal, a configuration error). */
  ReaderPermanent: 'ReaderPermanentError',
  /** A workflow's resource has no read model: it was never written, so no retry can find it. */
  ReadModelMissing: 'ReadModelMissing',
  /** A webhook delivery used up its schedule (its workflow fails with this type). */
  WebhookDeliveryFailed: 'WebhookDeliveryFailed',
} as const;

export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Failure types no retry can fix: activity retry policies stop at once on these. */
export const PERMANENT_FAILURES: readonly FailureType[] = [FailureType.ReaderPermanent, FailureType.ReadModelMissing];

/** A failure that retrying cannot fix, typed from the list. */
export function permanentFailure(type: FailureType, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}
