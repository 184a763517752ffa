import WebSocket from 'ws';
import type { StreamFrame, StreamProtocol } from '../calls/line/streamProtocol';

type Listener = (event: { data: string }) => void;

/**
 * What the Agents SDK's phone transport (phoneTransport.ts) is given instead of the stream's
 * socket. The transport listens on the socket it is handed (`addEventListener` for message,
 * close and error) and parses every message itself: a frame it cannot read becomes an `error`
 * event nobody may be listening to, which throws out of the socket's handler and ends the
 * process. Through this socket it hears only frames the bridge has already checked, rendered in
 * the transport's own message shapes (`deliver`), and the real socket's close; the real
 * socket's errors are the bridge's to handle. What it sends (audio, marks, clears in its own
 * shapes) is written in the provider's protocol to the real socket while that is open.
 */
export class TransportSocket {
  readonly #socket: WebSocket;
  readonly #protocol: StreamProtocol;
  readonly #messageListeners: Listener[] = [];

  constructor(socket: WebSocket, protocol: StreamProtocol) {
    this.#socket = socket;
    this.#protocol = protocol;
  }

  addEventListener(type: string, listener: Listener): void {
    if (type === 'message') this.#messageListeners.push(listener);
    else if (type === 'close') this.#socket.once('close', () => listener({ data: '' }));
    // 'error': not forwarded (see above); the session ends the stream on the socket's errors.
  }

  /** Hands a checked frame to the transport: the three it acts on (start, caller audio, mark echoes). */
  deliver(frame: StreamFrame): void {
    const text = transportMessage(frame);
    if (text === null) return;
    for (const listener of this.#messageListeners) listener({ data: text });
  }

  /** The transport's outbound message (`media`, `mark` or `clear`), written in the provider's protocol. */
  send(data: string): void {
    if (this.#socket.readyState !== WebSocket.OPEN) return;
    const message = JSON.parse(data) as { event: string; streamSid: string; media?: { payload: string }; mark?: { name: string } };
    if (message.event === 'media') this.#socket.send(this.#protocol.media(message.streamSid, message.media!.payload));
    else if (message.event === 'mark') this.#socket.send(this.#protocol.mark(message.streamSid, message.mark!.name));
    else if (message.event === 'clear') this.#socket.send(this.#protocol.clear(message.streamSid));
  }

  get readyState(): number {
    return this.#socket.readyState;
  }
}

/**
 * A neutral frame in the shapes the SDK's transport reads (it was written for one provider's
 * messages: `start.streamSid` and `start.mediaFormat`, `media.payload` and `media.timestamp`,
 * `mark.name`); null for frames it has no use for.
 */
function transportMessage(frame: StreamFrame): string | null {
  switch (frame.kind) {
    case 'start':
      return JSON.stringify({ event: 'start', start: { streamSid: frame.streamId, ...(frame.format ? { mediaFormat: frame.format } : {}) } });
    case 'media':
      return JSON.stringify({ event: 'media', media: { payload: frame.payload, timestamp: String(frame.streamMs) } });
    case 'mark':
      return JSON.stringify({ event: 'mark', mark: { name: frame.name } });
    default:
      return null;
  }
}
