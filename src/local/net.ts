import { createServer, connect } from 'node:net';
import { LaunchError } from './launchError';
import { portHolder } from './portHolder';

/** A port the OS considers free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** True when something already accepts connections on the port. */
export function portInUse(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls `check` until it resolves truthy, or fails with the last error after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T>, timeoutMs: number, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`${what} was not ready within ${Math.round(timeoutMs / 1000)} s${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Refuses a port something already answers on, in one line naming the process that holds
 * it (src/local/portHolder.ts) and the variable that moves ours.
 */
export async function refuseBusyPort(port: number, what: string, variable: string): Promise<void> {
  if (!(await portInUse(port))) return;
  const holder = portHolder(port);
  const by = holder ? `by pid ${holder.pid} (${holder.command})` : "by a process this user cannot see (another user's?)";
  throw new LaunchError(`port ${port} for ${what} is already in use ${by}; stop it, or choose another port with ${variable}`);
}
