/** What other features use of the event store: publishing events, their ids and times, the retention cutoff. */
export { eventIdFor, type EventInput, eventTimestamp } from './eventStore';
export { type EventPublisher, publishEach } from './publisher';
export { retentionCutoff, type RetentionOptions } from './retention';
