import { ApplicationFailure } from '@temporalio/common';
import { READER_PERMANENT_FAILURE, READER_TEMPORARY_FAILURE, ReaderPermanentError, ReaderTemporaryError } from '../../calls';

/**
 * How a reader error leaves the read activity: a permanent one as a non-retryable
 * ApplicationFailure so Temporal stops at once, a temporary one as a retryable failure the
 * activity's retry policy bounds. Both carry the reader error's name as the failure `type`,
 * which the workflow sees on `ActivityFailure.cause`. Anything else (a bug, a crash in a
 * dependency) is counted as temporary: the retry policy still ends it.
 *
 * Usage in the activity: `try { … } catch (err) { throw toActivityFailure(err); }`
 */
export function toActivityFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  // By name as well as by class: the error may come from another copy of this module (a test VM).
  if (err instanceof ReaderPermanentError || (err instanceof Error && err.name === READER_PERMANENT_FAILURE)) {
    return ApplicationFailure.create({ message: err.message, type: READER_PERMANENT_FAILURE, nonRetryable: true, cause: err });
  }
  if (err instanceof ReaderTemporaryError || (err instanceof Error && err.name === READER_TEMPORARY_FAILURE)) {
    return ApplicationFailure.create({ message: err.message, type: READER_TEMPORARY_FAILURE, nonRetryable: false, cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({
    message: `The reader failed unexpectedly: ${message}`,
    type: READER_TEMPORARY_FAILURE,
    nonRetryable: false,
    cause: err instanceof Error ? err : undefined,
  });
}
