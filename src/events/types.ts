/**
 * The twenty-two event types an endpoint can subscribe to (api-core §6; the second document's
 * §6). Seventeen are named by the spec; three complete the campaign lifecycle
 * (see docs/decisions/README.md), and two tell a help desk that a chat agent's conversation
 * went to a person and back (docs/agents.md). An endpoint with no types ticked receives every type here,
 * including any added later, because it stores `[]` rather than a copy of this list.
 *
 * `ping` (the console's test action) is deliberately not in this list: nobody subscribes to it.
 */
export const SUBSCRIBABLE_EVENT_TYPES = [
  'call.started',
  'call.ended',
  'call.outcome',
  'message.status',
  'message.received',
  'message.echo',
  'conversation.started',
  'conversation.handed_over',
  'conversation.handed_back',
  'campaign.launched',
  'campaign.paused',
  'campaign.resumed',
  'campaign.ended',
  'ticket.created',
  'ticket.updated',
  'ticket.replied',
  'payment.due_created',
  'payment.paid',
  'payment.declined',
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
] as const;

export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

/** Sent only by the console's test action, to one endpoint. */
export const PING_EVENT_TYPE = 'ping';

export function isSubscribableEventType(type: string): type is SubscribableEventType {
  return (SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(type);
}

/** Whether an endpoint ticking `eventTypes` receives `type`: none ticked means every subscribable type. */
export function endpointReceives(eventTypes: readonly string[], type: string): boolean {
  if (!isSubscribableEventType(type)) return false;
  return eventTypes.length === 0 || eventTypes.includes(type);
}
