import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions, type ConnectionPlugin } from '@temporalio/client';

type Interceptor = NonNullable<ConnectionOptions['interceptors']>[number];
/** What an interceptor's `nextCall` returns and grpc-js uses of what an interceptor returns. */
type Call = ReturnType<Parameters<Interceptor>[1]>;
type Start = Call['start'];

/** gRPC's CANCELLED status code (@grpc/grpc-js is not a direct dependency); the SDK does not retry it. */
const CANCELLED = 1;
const ENDED = 'the test environment was torn down';

/**
 * Ends a test environment's client calls when the environment is torn down. A test that timed
 * out leaves its calls running (a sleep, a result, a query): killing the server fails them
 * UNAVAILABLE, the SDK's retry interceptor tries again from a timer, and that retry meets the
 * closed channel and throws "Channel has been shut down" outside any promise, an uncaught
 * exception that jest charges to whichever file its worker process runs next. After `end()`,
 * the calls in flight are cancelled and every new attempt, first or retried, fails CANCELLED
 * at once, which nothing retries.
 */
export function callsEndedOnTeardown(): { plugin: ConnectionPlugin; end(): void } {
  let ended = false;
  const live = new Set<Call>();
  // After the SDK's retry interceptor, so each of its attempts passes through here.
  const guard = (options: Parameters<Interceptor>[0], nextCall: Parameters<Interceptor>[1]): Call => {
    if (ended) return endedCall();
    const call = nextCall(options);
    const start: Start = call.start.bind(call);
    call.start = (metadata, listener) => {
      live.add(call);
      start(metadata, {
        onReceiveMetadata: (received) => listener?.onReceiveMetadata?.(received),
        onReceiveMessage: (message) => listener?.onReceiveMessage?.(message),
        onReceiveStatus: (status) => {
          live.delete(call);
          listener?.onReceiveStatus?.(status);
        },
      });
    };
    return call;
  };
  return {
    plugin: {
      name: 'calls-ended-on-teardown',
      configureConnection: (options) => ({
        ...options,
        // The declared type asks for grpc-js's InterceptingCall class; grpc-js calls only its interface.
        interceptors: [...(options.interceptors ?? [makeGrpcRetryInterceptor(defaultGrpcRetryOptions())]), guard as Interceptor],
      }),
    },
    end() {
      ended = true;
      for (const call of live) call.cancelWithStatus(CANCELLED, ENDED);
      live.clear();
    },
  };
}

/**
 * A call that never reaches the channel: it reports CANCELLED as soon as it starts, after the
 * empty message grpc-js's own unary calls report first (the SDK's retry interceptor needs it).
 */
function endedCall(): Call {
  return {
    start: (metadata, listener) => {
      setImmediate(() => {
        listener?.onReceiveMessage?.(null);
        listener?.onReceiveStatus?.({ code: CANCELLED, details: ENDED, metadata });
      });
    },
    sendMessageWithContext: (context) => context.callback?.(),
    sendMessage: () => undefined,
    startRead: () => undefined,
    halfClose: () => undefined,
    cancelWithStatus: () => undefined,
    getPeer: () => '',
    getAuthContext: () => null,
  };
}
