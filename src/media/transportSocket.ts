import WebSocket from 'ws';

type Listener = (event: { data: string }) => void;

/**
 * What the Agents SDK's Twilio transport is given instead of the stream's socket. The transport
 * listens on the socket it is handed (`addEventListener` for message, close and error) and
 * parses every message itself: a frame it cannot read becomes an `error` event nobody may be
 * listening to, which throws out of the socket's handler and ends the process. Through this
 * socket it hears only the messages the bridge has already checked (`deliver`), and the real
 * socket's close; the real socket's errors are the bridge's to handle. What it sends goes to the
 * real socket while that is open.
 */
export class TransportSocket {
  readonly #socket: WebSocket;
  readonly #messageListeners: Listener[] = [];

  constructor(socket: WebSocket) {
    this.#socket = socket;
  }

  addEventListener(type: string, listener: Listener): void {
    if (type === 'message') this.#messageListeners.push(listener);
    else if (type === 'close') this.#socket.once('close', () => listener({ data: '' }));
    // 'error': not forwarded (see above); the session ends the stream on the socket's errors.
  }

  /** Hands a checked message's text to the transport. */
  deliver(text: string): void {
    for (const listener of this.#messageListeners) listener({ data: text });
  }

  send(data: string): void {
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.send(data);
  }

  get readyState(): number {
    return this.#socket.readyState;
  }
}
