import type { Reading, ReadInput } from './types';
import { FailureType } from '../temporal/failures';

/**
 * The call reader (DESIGN: providers): turns one finished call's transcript, goal and
 * capture into a Reading. The service types the answers and applies the success rule
 * afterwards (src/calls/result.ts), so a reader only proposes.
 */

export interface ReadOptions {
  /**
   * Which attempt this is, from 1: the activity passes Temporal's own attempt number, which
   * survives worker restarts, so scripted failures ("fail the first 2 reads") are counted
   * by Temporal rather than in a process's memory.
   */
  attempt: number;
  /** Aborted when the read is cancelled (the activity's cancellation): stop waiting for the answer. */
  signal?: AbortSignal;
}

export interface CallReader {
  /**
   * Reads one call. Throws ReaderTemporaryError when a later attempt may succeed and
   * ReaderPermanentError when none will; any other error is a bug and is retried as temporary.
   */
  read(input: ReadInput, options?: ReadOptions): Promise<Reading>;
}

/** Failure types as Temporal carries them (`ApplicationFailure.type`), from the one list. */
export const READER_TEMPORARY_FAILURE = FailureType.ReaderTemporary;
export const READER_PERMANENT_FAILURE = FailureType.ReaderPermanent;

/** A timeout, 429, 5xx, network error or unusable output: retrying may succeed. */
export class ReaderTemporaryError extends Error {
  override readonly name = READER_TEMPORARY_FAILURE;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A refused request (4xx other than 408/429) or a configuration error: retrying cannot help. */
export class ReaderPermanentError extends Error {
  override readonly name = READER_PERMANENT_FAILURE;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
