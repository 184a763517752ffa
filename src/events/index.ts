/** What other features use of the event store: publishing events, the stored events, their ids and times, the retention cutoff. */
export { eventIdFor, type EventInput, eventsCollection, eventTimestamp } from './eventStore';
export { type EventPublisher, publishEach } from './publisher';
export { retentionCutoff, type RetentionOptions } from './retention';
