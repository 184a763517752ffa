import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, untilReady } from '../childProcess';
import { waitFor } from '../net';
import type { Watchdog } from '../watchdog';
import type { LocalServer } from '../servers';
import type { LivenessProbe } from '../liveness';

/**
 * The cluster's PostgreSQL (Debian's packages): one data directory that Temporal's two
 * databases and FerretDB's share, on loopback only. PostgreSQL refuses to run as root, so a
 * root launcher (CI, this machine) runs it as the `postgres` user the Debian package creates.
 */

export interface PostgresOptions {
  /** Where initdb, postgres and pg_isready are (scripts/start-cluster.sh finds it). */
  binDir: string;
  dataDir: string;
  port: number;
  user: string;
  password: string;
  logFile: string;
  watchdog?: Watchdog;
}

/** The account PostgreSQL runs as when we are root; null when we are not root. */
function serverAccount(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root, and there is no `postgres` user to run PostgreSQL as: install Debian\'s postgresql package');
  }
}

/** initdb once: password auth on loopback (as docker-compose's postgres image), trust on the private socket. */
function initOnce(options: PostgresOptions, account: { uid: number; gid: number } | null): void {
  if (existsSync(join(options.dataDir, 'PG_VERSION'))) return;
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const pwFile = join(options.dataDir, '..', 'postgres-password');
  writeFileSync(pwFile, `${options.password}\n`, { mode: 0o600 });
  if (account) {
    chownSync(options.dataDir, account.uid, account.gid);
    chownSync(pwFile, account.uid, account.gid);
  }
  execFileSync(
    join(options.binDir, 'initdb'),
    ['-D', options.dataDir, '-U', options.user, `--pwfile=${pwFile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C.UTF-8'],
    { stdio: ['ignore', 'ignore', 'pipe'], ...(account ?? {}) },
  );
}

export async function startPostgres(options: PostgresOptions): Promise<LocalServer> {
  const account = serverAccount();
  initOnce(options, account);
  const proc = startProcess(
    'postgresql',
    join(options.binDir, 'postgres'),
    [
      '-D', options.dataDir,
      '-p', String(options.port),
      '-c', 'listen_addresses=127.0.0.1',
      // Its socket beside its data: the system's socket directory may not exist or be writable.
      '-c', `unix_socket_directories=${options.dataDir}`,
      // Temporal's four services hold pools of their own (config: maxConns), FerretDB one more.
      '-c', 'max_connections=200',
    ],
    { logFile: options.logFile, watchdog: options.watchdog, ...(account ? { user: account } : {}) },
  );
  // SIGTERM is PostgreSQL's "smart" shutdown, which waits for every client (Temporal's pools)
  // to leave; SIGINT is its fast one: clients are disconnected, the data is consistent.
  const stop = proc.stop.bind(proc);
  proc.stop = (graceMs) => {
    proc.child.kill('SIGINT');
    return stop(graceMs);
  };
  const ready = join(options.binDir, 'pg_isready');
  await untilReady(
    proc,
    waitFor(
      'PostgreSQL',
      async () => {
        execFileSync(ready, ['-q', '-h', '127.0.0.1', '-p', String(options.port), '-U', options.user], { stdio: 'ignore', timeout: 2_000 });
        return true;
      },
      60_000,
      250,
    ),
  );
  return { process: proc, address: `127.0.0.1:${options.port}` };
}

/** PostgreSQL's liveness: pg_isready answers within the check's time. */
export function postgresProbe(binDir: string, port: number, user: string): LivenessProbe {
  return {
    check: (timeoutMs) =>
      new Promise<void>((resolve, reject) =>
        execFile(join(binDir, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-U', user], { timeout: timeoutMs }, (err) => (err ? reject(err) : resolve())),
      ),
    close: async () => undefined,
  };
}
