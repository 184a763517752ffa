import type WebSocket from 'ws';

/** Where Twilio's <Connect><Stream url="wss://…/media-stream"> connects. */
export const MEDIA_STREAM_PATH = '/media-stream';

/**
 * Twilio Media Streams' messages to the bridge (<Connect><Stream>, bidirectional). Only the
 * fields the bridge reads are typed; the Agents SDK's transport reads the same messages.
 */
export type StreamMessage =
  | { event: 'connected'; protocol?: string; version?: string }
  | {
      event: 'start';
      streamSid: string;
      start: {
        streamSid: string;
        callSid?: string;
        accountSid?: string;
        tracks?: string[];
        /** The <Parameter> names the TwiML gave: the bridge needs `callId`. */
        customParameters?: Record<string, string>;
        mediaFormat?: { encoding: string; sampleRate: number; channels: number };
      };
    }
  | { event: 'media'; streamSid: string; media: { track?: string; chunk?: string; timestamp: string; payload: string } }
  | { event: 'mark'; streamSid: string; mark: { name: string } }
  | { event: 'stop'; streamSid: string; stop?: { callSid?: string } }
  | { event: 'dtmf'; streamSid: string };

/** A WebSocket message's text, whichever shape `ws` delivered it in. */
export function messageText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** A text frame from the stream, or null for anything that is not one of Twilio's messages. */
export function parseStreamMessage(data: WebSocket.RawData): StreamMessage | null {
  try {
    const parsed = JSON.parse(messageText(data)) as { event?: unknown };
    return typeof parsed?.event === 'string' ? (parsed as StreamMessage) : null;
  } catch {
    return null;
  }
}
