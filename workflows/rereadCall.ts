import type { ReadCallInput } from './callDefinitions';
import { readAndRecord } from './callReading';

/** A console re-read of a finished call: read again, record, and send `call.outcome` again. */
export async function rereadCall(input: ReadCallInput): Promise<string> {
  return readAndRecord(input.callId, input.reading, input.reread);
}
