import type { ReadCallInput, ReadingState } from '../../src/calls/contracts';
import { readAndRecord } from './callReading';

/** A console re-read of a finished call: read again, record, and send `call.outcome` again. */
export async function rereadCall(input: ReadCallInput): Promise<ReadingState> {
  return readAndRecord(input.callId, input.reading, input.reread);
}
