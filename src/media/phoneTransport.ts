import type WebSocket from 'ws';
import { TwilioRealtimeTransportLayer } from '@openai/agents-extensions';
import type { TransportSocket } from './transportSocket';

/**
 * The Agents SDK's transport for a telephone media stream: it moves 8 kHz mu-law audio between
 * the stream and the realtime model, tracks what the caller has heard through marks, clears the
 * line and truncates the model's item when the caller interrupts, and pads gaps in the caller's
 * audio. The SDK ships it under one provider's name and reads that provider's message shapes;
 * every provider's stream reaches it through TransportSocket, which renders the bridge's neutral
 * frames in those shapes and writes its sends in the provider's own protocol. This module is the
 * one place in the bridge that names the SDK class (docs/media.md, "A provider's stream protocol").
 */
export type PhoneTransport = TwilioRealtimeTransportLayer;

type CreateModelSocket = ConstructorParameters<typeof TwilioRealtimeTransportLayer>[0]['createWebSocket'];

export function createPhoneTransport(socket: TransportSocket, createWebSocket: CreateModelSocket): PhoneTransport {
  return new TwilioRealtimeTransportLayer({ twilioWebSocket: socket as unknown as WebSocket, createWebSocket });
}
