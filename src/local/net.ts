import { readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { LaunchError } from './launchError';
import { portHolder } from './portHolder';

/** Binds `port` (0: any) on 127.0.0.1 and lets go; answers the port bound, or null when it was taken. */
function tryPort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

/** The lowest port the OS hands out for port 0 and outgoing connections (Linux's default when unreadable). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A port free right now on 127.0.0.1, below the ephemeral range. A port from the ephemeral
 * range (port 0) can be taken before the caller binds it by any process's outgoing
 * connection or by a server binding port 0, such as the Temporal dev server's internal
 * services: `npm start`'s tests saw FerretDB's chosen port taken that way. Falls back to
 * port 0 when no port below the range is free after a few tries.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await tryPort(10_000 + Math.floor(Math.random() * (low - 10_000)));
    if (port !== null) return port;
  }
  const any = await tryPort(0);
  if (any === null) throw new Error('no free port');
  return any;
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
